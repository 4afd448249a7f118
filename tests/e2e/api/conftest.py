"""Fixtures of the API's e2e tests (see harness.py): one server per session, a tenant per test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from hippograph.app.access.repository import KeyRepository
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.e2e.api.harness import Server, Tenant, start_server


@pytest.fixture(scope="session")
def api_server(neo4j_server: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(neo4j_server, tmp_path_factory.mktemp("api"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def api_repo(conn: Neo4jConnection) -> KeyRepository:
    return KeyRepository(conn)


@pytest.fixture
async def api_tenant(api_server: Server, api_repo: KeyRepository, store: GraphStore) -> AsyncIterator[Tenant]:
    org = Scope.root("org", f"api-{uuid.uuid4().hex[:10]}")
    user = org.child("user", "ana")
    yield Tenant(org, user, user.child("conversation", "c1"), org.child("user", "bob"), api_server.url, api_repo)
    await store.delete_subtree(org)
