"""The testcontainers path, for people with a Docker engine: the same store test against a
``neo4j:2026.08.1`` container. Skipped (with the reason) where no engine runs, as on
the machines this project is built on."""

from __future__ import annotations

import shutil
import subprocess
import uuid

import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate


def _docker_engine_runs() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not _docker_engine_runs(), reason="no Docker engine runs here (the local Neo4j covers the suite)")
async def test_store_against_a_container() -> None:
    testcontainers = pytest.importorskip("testcontainers.neo4j")
    with testcontainers.Neo4jContainer("neo4j:2026.08.1", password="hippograph-test") as neo4j:
        conn = await Neo4jConnection.connect(neo4j.get_connection_url(), password="hippograph-test")
        try:
            await migrate(conn)
            store = GraphStore(conn)
            scope = Scope.root("org", f"tc-{uuid.uuid4().hex[:6]}")
            node = await store.add_node(scope, MemoryNode(layer=Layer.SEMANTIC, label="from a container"))
            assert (await store.get_node(scope, node.id)) is not None
        finally:
            await conn.close()
