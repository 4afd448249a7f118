"""Entry points, reports and their history, the lease, the nap cadence and the audit trail."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from hippograph.audit import AuditAction, list_audit, record_audit
from hippograph.consolidation import (
    QUICK_NAP_ORDER,
    RUN_ORDER,
    EntryPoint,
    Phase,
    PhaseStatus,
    RunStatus,
    list_runs,
)
from hippograph.consolidation.lease import Lease
from hippograph.errors import AlreadyRunningError, InvalidInputError
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import DAY, MINUTE, NOW, event, fact


class SlowSummarizer:
    """Holds a run inside phase 10 until released."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def summarize(self, texts: Sequence[str]) -> str:
        self.entered.set()
        await self.release.wait()
        return "slow summary"


async def _crowd(store: GraphStore, scope: Scope) -> None:
    await store.add_nodes(scope, [event(f"e{i}", at=NOW - DAY + i * MINUTE) for i in range(101)])


async def test_run_reports_every_phase_in_order_and_is_persisted(
    conn: Neo4jConnection, store: GraphStore, tenant: Scope, make: Make
) -> None:
    await store.add_nodes(tenant, [fact("a", access_count=3), fact("b")])
    report = await make().run(tenant)
    assert report.status is RunStatus.COMPLETED and report.entry_point is EntryPoint.RUN
    assert [p.name for p in report.phases_run] == list(RUN_ORDER)
    assert [p.number for p in report.phases_run][:3] == ["1", "5", "8"]
    soul = report.phase(Phase.SOUL_CORRECTIONS)
    assert soul is not None and soul.status is PhaseStatus.SKIPPED
    ran = [p for p in report.phases_run if p.status is PhaseStatus.RAN]
    assert len(ran) == 14 and all(p.duration_ms >= 0 for p in ran)
    assert report.totals["strengthen.strengthened"] == 1
    assert report.started_at == NOW and report.finished_at == NOW
    quick = await make().quick_nap(tenant)
    assert [p.name for p in quick.phases_run] == list(QUICK_NAP_ORDER)
    history = await list_runs(conn, tenant)
    assert [r.run_id for r in history] == [quick.run_id, report.run_id] or {r.run_id for r in history} == {
        quick.run_id,
        report.run_id,
    }
    stored = next(r for r in history if r.run_id == report.run_id)
    assert stored == report
    assert await make().list_runs(tenant.child("user", "nobody")) == []
    with pytest.raises(InvalidInputError, match="limit"):
        await list_runs(conn, tenant, limit=0)


async def test_nightly_nap_only_when_enabled(conn: Neo4jConnection, tenant: Scope, make: Make) -> None:
    off = await make().nightly_nap(tenant)
    assert off.status is RunStatus.SKIPPED and "nightly_enabled" in (off.skip_reason or "")
    assert all(p.status is PhaseStatus.SKIPPED for p in off.phases_run)
    assert len(off.phases_run) == len(RUN_ORDER)
    on = await make(nightly_enabled=True).nightly_nap(tenant)
    assert on.status is RunStatus.COMPLETED and on.entry_point is EntryPoint.NIGHTLY_NAP
    assert {r.run_id: r.status for r in await list_runs(conn, tenant)} == {
        off.run_id: RunStatus.SKIPPED,
        on.run_id: RunStatus.COMPLETED,
    }


async def test_two_concurrent_runs_one_gets_already_running(store: GraphStore, tenant: Scope, make: Make) -> None:
    await _crowd(store, tenant)
    model = SlowSummarizer()

    async def release_soon() -> None:
        await model.entered.wait()
        await asyncio.sleep(0.5)
        model.release.set()

    results = await asyncio.gather(
        make(model=model).run(tenant),
        make(model=model).run(tenant),
        release_soon(),
        return_exceptions=True,
    )
    errors = [r for r in results[:2] if isinstance(r, BaseException)]
    assert len(errors) == 1 and isinstance(errors[0], AlreadyRunningError)
    assert "already running" in str(errors[0])


async def test_lease_covers_the_subtree_and_waiting_works(store: GraphStore, tenant: Scope, make: Make) -> None:
    child, sibling = tenant.child("user", "u"), tenant.child("user", "v")
    await _crowd(store, child)
    model = SlowSummarizer()
    first = asyncio.create_task(make(model=model).run(child))
    await asyncio.wait_for(model.entered.wait(), 30)
    with pytest.raises(AlreadyRunningError):
        await make().run(tenant)  # an ancestor's run would cover the busy child
    with pytest.raises(AlreadyRunningError):
        await make().quick_nap(child.child("session", "s"))  # so would a descendant's
    assert (await make().run(sibling)).status is RunStatus.COMPLETED  # a sibling is free
    waiting = asyncio.create_task(make(wait_timeout=30).run(child, wait=True))
    await asyncio.sleep(0.5)
    assert not waiting.done()
    model.release.set()
    assert (await first).status is RunStatus.COMPLETED
    assert (await waiting).status is RunStatus.COMPLETED
    with pytest.raises(AlreadyRunningError):  # wait gives up after its timeout
        lease = await Lease.acquire(store.conn, child, holder="someone", ttl=60)
        try:
            await make(wait_timeout=0.5, lease_poll=0.1).run(child, wait=True)
        finally:
            await lease.release()


async def test_an_expired_lease_is_free_again(store: GraphStore, tenant: Scope, make: Make) -> None:
    # No race with the server clock: the crashed run's lease is live for an hour, then its
    # last renewal is moved an hour into the past (a renewal sets expires_at = now + ttl).
    crashed = await Lease.acquire(store.conn, tenant, holder="crashed-run", ttl=3600)
    with pytest.raises(AlreadyRunningError):
        await make().run(tenant)
    crashed.ttl = -3600
    await crashed.renew()
    assert (await make().run(tenant)).status is RunStatus.COMPLETED
    with pytest.raises(AlreadyRunningError):  # the lost lease cannot be renewed any more
        await crashed.renew()


async def test_note_turn_says_when_a_quick_nap_is_due(tenant: Scope, make: Make) -> None:
    sleeper = make(turns_between_naps=3)
    other = tenant.child("user", "u")
    assert [sleeper.note_turn(tenant) for _ in range(7)] == [
        False,
        False,
        True,
        False,
        False,
        True,
        False,
    ]
    assert [sleeper.note_turn(other) for _ in range(3)] == [False, False, True]
    assert not any(make().note_turn(tenant) for _ in range(10))


async def test_audit_trail_records_validates_and_pages(conn: Neo4jConnection, tenant: Scope) -> None:
    child = tenant.child("user", "u")
    first = await record_audit(conn, tenant, "alice", AuditAction.APPROVE, "skill-1", {"why": "good"}, at=NOW)
    second = await record_audit(conn, child, "bob", "toggle", "skill-1", {"active": False}, at=NOW + 1)
    assert (first.actor, first.action, first.target, first.detail) == (
        "alice",
        "approve",
        "skill-1",
        {"why": "good"},
    )
    assert [e.id for e in await list_audit(conn, tenant)] == [second.id, first.id]
    assert [e.id for e in await list_audit(conn, tenant, limit=1, offset=1)] == [first.id]
    assert [e.id for e in await list_audit(conn, child)] == [second.id]
    assert (await list_audit(conn, child))[0] == second
    for bad in [
        ("", "approve", "x"),
        ("alice", "Approve!", "x"),
        ("alice", "approve", "x`) DETACH DELETE m //"),
    ]:
        with pytest.raises(InvalidInputError):
            await record_audit(conn, tenant, *bad)
    with pytest.raises(InvalidInputError, match="limit"):
        await list_audit(conn, tenant, limit=5000)
    assert len(await list_audit(conn, tenant)) == 2
