"""The short CI variant of ``benchmarks/reliability_load.py``: the API under mixed
load (recall, remember, scripted turns, dashboard queries) for a few seconds answers every
request without an error, Neo4j detects no deadlock between its concurrent writers (as its
``/metrics`` counts them), and every in-process table it keeps stays within its bound. No
timing is asserted; the benchmark reports the figures."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippograph.agent.background import MAX_REPORTS
from hippograph.agent.reminders import SEEDED_CACHE
from hippograph.app.access.keys import Role, create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.app.api.metrics import METHODS
from hippograph.app.api.services import ApiServices
from hippograph.consolidation.consolidator import MAX_UNRELEASED
from hippograph.consolidation.schedule import MAX_SCOPES
from hippograph.retrieval.recall_state import Populations
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.e2e.api.harness import Server, start_server
from tests.support.load import DEADLOCK, drive
from tests.support.memory_internals import internals

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
    _, token = await create_key(KeyRepository(conn), org, Role.WRITER)
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
    faults = store_faults(services)
    tally["load deadlocks"] += faults.get(DEADLOCK, 0)
    assert faults.get(DEADLOCK, 0) == 0, faults
    tables = table_sizes(services, org)
    tally["in-process tables checked"] += len(tables)
    assert tables["sessions of the tenant"][0] > 0
    assert not {name: sb for name, sb in tables.items() if sb[0] > sb[1]}, tables


def store_faults(services: ApiServices) -> dict[str, int]:
    """The API's ``hippograph_store_transient_faults_total`` by code, as ``/metrics`` reports it."""
    family = next(f for f in services.metrics.registry.collect() if f.name == "hippograph_store_transient_faults")
    return {s.labels["code"]: int(s.value) for s in family.samples}


def table_sizes(services: ApiServices, tenant: Scope) -> dict[str, tuple[int, int]]:
    """Every in-process table of the API process: (size now, its bound)."""
    agent, sessions = services.agent, services.agent.sessions
    settings = agent.config.sessions
    requests = next(f for f in services.metrics.registry.collect() if f.name == "hippograph_api_requests")
    routes = {s.labels["route"] for s in requests.samples}
    return {
        "sessions of the tenant": (sessions.count(tenant), settings.max_per_tenant),
        "sessions": (len(sessions), settings.max_total),
        "tenants with sessions": (sessions.tenants(), settings.max_total),
        "persona seeds": (len(agent._persona._seeded), SEEDED_CACHE + 1),
        "background reports": (len(agent._background._done), MAX_REPORTS),
        "nap counters": (len(services.consolidator._schedule._turns), MAX_SCOPES),
        "unreleased leases": (len(services.consolidator._unreleased), MAX_UNRELEASED),
        "known scopes": (len(internals(services.memory).store._known_scopes), GraphStore.KNOWN_SCOPES_CAP),
        "recall populations": (len(internals(services.memory).engine._populations), Populations.CAP + 1),
        "request metric series": (len(requests.samples), 2 * len(routes) * (len(METHODS) + 1) * 5 * 10),
    }


async def test_the_known_scopes_cache_is_bounded(
    store: GraphStore, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It grew by every scope ever written: a long-lived API process leaked one entry per conversation."""
    own = GraphStore(store.conn)
    monkeypatch.setattr(GraphStore, "KNOWN_SCOPES_CAP", 10)
    for i in range(40):
        await own.ensure_scope(tenant.child("user", f"u{i}").child("conversation", "c"))
    assert len(own._known_scopes) <= 10 + 3
