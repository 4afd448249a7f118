"""Shared fixtures. Integration tests talk to a real Neo4j over Bolt:

* ``HIPPOGRAPH_NEO4J_URI`` set → that server (``HIPPOGRAPH_NEO4J_PASSWORD``); nothing is wiped,
  every test works in its own fresh root scope and erases it afterwards;
* otherwise the local embedded Neo4j is built (once) and started in a throwaway folder on a
  free port, and stopped at the end of the session.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from hippograph.dbms import LocalNeo4j
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from tests.support.servers import served

_FOLDER_MARKERS = {"unit": "unit", "integration": "integration", "e2e": "e2e", "reliability": "reliability"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        for folder, marker in _FOLDER_MARKERS.items():
            if folder in parts:
                item.add_marker(getattr(pytest.mark, marker))


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(uri, password) of the Neo4j the suite talks to."""
    uri = os.environ.get("HIPPOGRAPH_NEO4J_URI")
    if uri:
        yield uri, os.environ.get("HIPPOGRAPH_NEO4J_PASSWORD", "")
        return
    server = LocalNeo4j(tmp_path_factory.mktemp("neo4j"), heap="1g", pagecache_mb=256, stop_with_parent=True)
    with served(server) as address:
        yield address


@pytest.fixture(scope="session")
async def conn(neo4j_server: tuple[str, str]) -> AsyncIterator[Neo4jConnection]:
    uri, password = neo4j_server
    connection = await Neo4jConnection.connect(uri, password=password)
    await migrate(connection)
    yield connection
    await connection.close()


@pytest.fixture(scope="session")
def store(conn: Neo4jConnection) -> GraphStore:
    return GraphStore(conn)


@pytest.fixture
async def tenant(store: GraphStore) -> AsyncIterator[Scope]:
    """A fresh root scope of this test alone; erased afterwards."""
    scope = Scope.root("org", f"test-{uuid.uuid4().hex[:12]}")
    yield scope
    await store.delete_subtree(scope)
