"""Issue 13 #5, memory flat: the API process's in-process tables stay bounded whoever fills them.
The session table is bounded per tenant (a tenant evicts only its own sessions) and over all
tenants (the tenant holding the most gives way, never a small one); the request counter's
labels are bounded whatever method a client sends. (The load test reads every table's size.)"""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry
from starlette.types import Receive, Send
from starlette.types import Scope as AsgiScope

from hippograph.agent import SessionSettings
from hippograph.agent.sessions import SessionManager
from hippograph.app.api.metrics import METHODS, ApiMetrics, MetricsMiddleware
from hippograph.scope import Scope

BIG, SMALL = Scope.root("org", "big"), Scope.root("org", "small")


async def _open(sessions: SessionManager, tenant: Scope, count: int, prefix: str = "s") -> None:
    for i in range(count):
        await sessions.open(tenant.child("user", f"u{i % 7}"), f"{prefix}{i}")


async def test_one_tenant_cannot_grow_the_table_or_evict_another_tenants_sessions() -> None:
    sessions = SessionManager(None, SessionSettings(max_per_tenant=20, max_total=1_000))
    await _open(sessions, SMALL, 5)
    await _open(sessions, BIG, 500)
    assert sessions.count(BIG) <= 20
    assert sessions.count(SMALL) == 5, "a big tenant evicted a small one's sessions"
    assert len(sessions) == sessions.count(BIG) + 5


async def test_the_table_is_bounded_over_all_tenants_and_the_largest_gives_way() -> None:
    sessions = SessionManager(None, SessionSettings(max_per_tenant=40, max_total=50))
    await _open(sessions, SMALL, 5)
    await _open(sessions, BIG, 40)
    singles = [Scope.root("org", f"t{t}") for t in range(400)]
    for tenant in singles[:20]:
        await sessions.open(tenant, "only")
    assert len(sessions) <= 50
    assert sessions.count(SMALL) == 5, "a big tenant evicted a smaller one's sessions"
    assert all(sessions.count(t) == 1 for t in singles[:20])
    assert sessions.count(BIG) < 40
    for tenant in singles[20:]:  # hundreds of tenants: the table must not grow with them
        await sessions.open(tenant, "only")
    assert len(sessions) <= 50 and sessions.tenants() <= 50
    assert sessions.get(singles[-1], "only") is not None  # the newest stays
    held = sum(sessions.count(t) for t in [BIG, SMALL, *singles])
    assert len(sessions) == held


async def test_a_session_running_a_turn_is_never_evicted_and_dropping_frees_its_tenant() -> None:
    sessions = SessionManager(None, SessionSettings(max_per_tenant=10, max_total=100))
    running = await sessions.open(BIG.child("user", "a"), "running")
    async with running.lock:
        await _open(sessions, BIG, 50)
        assert sessions.get(BIG.child("user", "a"), "running") is running
    assert sessions.count(BIG) <= 11
    for session in [s for u in range(7) for s in sessions.list(BIG.child("user", f"u{u}"))]:
        assert sessions.drop(session.scope, session.id)
    assert sessions.drop(running.scope, running.id)
    assert len(sessions) == 0 and sessions.tenants() == 0


async def test_request_metrics_count_odd_methods_as_one_label() -> None:
    metrics = ApiMetrics(CollectorRegistry())

    async def app(scope: AsgiScope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 405, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b""}

    async def send(message: object) -> None:
        return None

    middleware = MetricsMiddleware(app, metrics)
    methods = [*sorted(METHODS), *(f"X-{i}" for i in range(200))]
    await asyncio.gather(*(middleware({"type": "http", "method": m, "path": "/"}, receive, send) for m in methods))
    [family] = [f for f in metrics.registry.collect() if f.name == "hippograph_api_requests"]
    labels = {s.labels["method"] for s in family.samples if s.name.endswith("_total")}
    assert labels == {*METHODS, "other"}
