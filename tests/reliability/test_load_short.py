"""Issue 13 #5, the short CI variant of ``benchmarks/reliability_load.py``: the API under mixed
load (recall, remember, scripted turns, dashboard queries) for a few seconds answers every
request without an error, and every in-process table it keeps stays within its bound. No
timing is asserted; the benchmark reports the figures."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.reliability_load import drive
from hippograph.app.api.auth import Role, create_key
from hippograph.app.api.repository import ApiRepository
from hippograph.app.api.services import ApiServices
from hippograph.retrieval.recall_state import Populations
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.e2e.api.harness import Server, start_server

SECONDS = 20.0
CLIENTS = 8
USERS = 12


@pytest.fixture
def loaded_api(neo4j_server: tuple[str, str], tmp_path: Path) -> Iterator[Server]:
    server = start_server(neo4j_server, tmp_path, rate_limit_per_minute=1_000_000)
    yield server
    server.stop()


async def test_mixed_load_has_no_errors_and_bounded_tables(
    loaded_api: Server, conn: Neo4jConnection, store: GraphStore, tally: Counter[str]
) -> None:
    org = Scope.root("org", f"load-{uuid.uuid4().hex[:8]}")
    _, token = await create_key(ApiRepository(conn), org, Role.WRITER)
    scopes = [org.child("user", f"u{i}").key for i in range(USERS)]
    try:
        report = await drive(loaded_api.url, token, scopes, seconds=SECONDS, clients=CLIENTS)
    finally:
        services: ApiServices = loaded_api.server.config.app.state.services  # type: ignore[union-attr]
        await store.delete_subtree(org)
    tally["load requests"] += report.requests
    tally["load errors"] += len(report.errors)
    assert report.errors == [], report.errors[:5]
    assert set(report.latencies) == {"recall", "remember", "turn", "memories", "stats", "runs"}
    assert 0 < len(services.agent.sessions) <= services.agent.config.sessions.max_per_tenant  # one tenant
    assert len(services.memory.store._known_scopes) <= services.memory.store.KNOWN_SCOPES_CAP
    assert len(services.memory.engine._populations) <= Populations.CAP + 1


async def test_the_known_scopes_cache_is_bounded(
    store: GraphStore, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It grew by every scope ever written: a long-lived API process leaked one entry per conversation."""
    own = GraphStore(store.conn)
    monkeypatch.setattr(GraphStore, "KNOWN_SCOPES_CAP", 10)
    for i in range(40):
        await own.ensure_scope(tenant.child("user", f"u{i}").child("conversation", "c"))
    assert len(own._known_scopes) <= 10 + 3
