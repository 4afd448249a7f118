"""Deep sleep over a lived-in graph; isolation; idempotency; interruption and convergence."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hippograph.consolidation import Phase, PhaseStatus, RunStatus, SleepConsolidator, list_runs
from hippograph.consolidation.queries import ConsolidationQuery
from hippograph.models import Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from hippograph.store.catalog import CypherQuery
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import (
    NOW,
    edges_of,
    nodes_by_label,
    pending_links,
    snapshot,
)
from tests.integration.consolidation.sleep_world import SOUL_SCHEMA, build_world, canonical


async def test_deep_sleep_every_phase_works_and_a_sibling_is_untouched(
    conn: Neo4jConnection, store: GraphStore, tenant: Scope, make: Make
) -> None:
    home, sibling = tenant.child("user", "a"), tenant.child("user", "b")
    await build_world(store, conn, home, "A" + tenant.id, seed=tenant.id)
    await build_world(store, conn, sibling, "B" + tenant.id, seed=tenant.id)
    sibling_before = await snapshot(conn, sibling)
    assert len([n for n in sibling_before if n["layer"] == "episodic"]) == 120
    assert len([n for n in sibling_before if n["layer"] == "semantic"]) >= 30

    report = await make(soul_schema=SOUL_SCHEMA).run(home)
    idle = [p.name for p in report.phases_run if not p.did_work]
    assert idle == [], f"phases that found nothing: {idle}\n{report.totals}"
    assert report.status is RunStatus.COMPLETED and len(report.phases_run) == 15
    c = report.totals
    assert c["working_ttl.deleted"] == 2 and c["soul_corrections.applied"] == 1
    assert c["episodic_summary.folded"] == 50 and c["procedural_promotion.drafts"] == 1
    assert c["semantic_merge.merged"] == 1 and c["prune_orphans.orphans"] == 4
    assert c["prune_retracted.deleted"] == 1 and c["expire_durability.retracted"] == 2
    assert c["pending_edges.edges"] == 2 and c["pending_edges.consumed"] == 3
    assert c["meta_nodes.metas"] == 4 and c["decay_importance.decayed"] == 14

    got = await nodes_by_label(store, home)
    assert got["really likes hiking"].retraction["merged_into"] == got["likes hiking"].id  # type: ignore[index]
    assert got["SOUL:user"].properties["name"] == "Samantha"
    assert got["deploy release"].properties["status"] == "draft"
    assert got["server"].properties["risk"] is True
    assert len(await edges_of(store, home, Relationship.SYNTHETIC_LINK)) > 0
    assert len(await edges_of(store, home, Relationship.CO_OCCURRED)) > 0
    assert await snapshot(conn, sibling) == sibling_before
    assert len(await pending_links(conn, sibling)) == 3

    after_first = await snapshot(conn, home)
    second = await make(soul_schema=SOUL_SCHEMA).run(home)
    assert await snapshot(conn, home) == after_first, "a second run changed the graph"
    assert second.totals["semantic_merge.merged"] == 0 and second.totals["cooccurrence.edges"] == 0
    history = await list_runs(conn, home, limit=5)
    assert {r.run_id for r in history} == {report.run_id, second.run_id}


class Tripwire:
    """A connection that cancels ``task`` shortly after ``target`` starts running."""

    def __init__(self, conn: Neo4jConnection, target: CypherQuery, delay: float) -> None:
        self._conn = conn
        self.target = target
        self.delay = delay
        self.task: asyncio.Task[Any] | None = None
        self.tripped = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def _arm(self, query: CypherQuery) -> None:
        if query is self.target and self.task is not None and not self.tripped:
            self.tripped = True
            asyncio.get_running_loop().call_later(self.delay, self.task.cancel)

    async def run_autocommit(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        self._arm(query)
        return await self._conn.run_autocommit(query, **params)

    async def read(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        self._arm(query)
        return await self._conn.read(query, **params)

    async def write(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        self._arm(query)
        return await self._conn.write(query, **params)


_PHASE_OF = {
    ConsolidationQuery.FOLD_EPISODES: Phase.EPISODIC_SUMMARY,
    ConsolidationQuery.MERGE_FACTS: Phase.SEMANTIC_MERGE,
    ConsolidationQuery.DELETE_ORPHANS: Phase.PRUNE_ORPHANS,
    ConsolidationQuery.LINK_COOCCURRENCES: Phase.COOCCURRENCE,
    ConsolidationQuery.STRENGTHEN_MEMORIES: Phase.STRENGTHEN,
}


@pytest.mark.parametrize(
    ("target", "delay"),
    [
        (ConsolidationQuery.FOLD_EPISODES, 0.0),
        (ConsolidationQuery.MERGE_FACTS, 0.0),
        (ConsolidationQuery.DELETE_ORPHANS, 0.0),
        (ConsolidationQuery.LINK_COOCCURRENCES, 0.0),
        (ConsolidationQuery.STRENGTHEN_MEMORIES, 0.0),
    ],
    ids=["fold", "merge", "prune", "cooccurrence", "strengthen"],
)
async def test_an_interrupted_run_converges_to_the_uninterrupted_result(
    conn: Neo4jConnection,
    store: GraphStore,
    tenant: Scope,
    make: Make,
    target: CypherQuery,
    delay: float,
) -> None:
    calm, stormy = tenant.child("user", "a"), tenant.child("user", "b")
    await build_world(store, conn, calm, "A" + tenant.id, seed=tenant.id)
    await build_world(store, conn, stormy, "B" + tenant.id, seed=tenant.id)
    await make(soul_schema=SOUL_SCHEMA).run(calm)

    wire = Tripwire(conn, target, delay)
    from hippograph.consolidation import ConsolidationConfig

    interrupted = SleepConsolidator(wire, ConsolidationConfig(soul_schema=SOUL_SCHEMA), clock=lambda: NOW)  # type: ignore[arg-type]
    task = asyncio.create_task(interrupted.run(stormy))
    wire.task = task
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wire.tripped
    failed = (await list_runs(conn, stormy))[0]
    assert failed.status is RunStatus.FAILED and "cancelled" in (failed.error or "")
    assert len(failed.phases_run) < 15 and failed.error == f"cancelled in phase {_PHASE_OF[target]}"

    rerun = await make(soul_schema=SOUL_SCHEMA).run(stormy)  # the lease was given back
    assert rerun.status is RunStatus.COMPLETED
    assert canonical(await snapshot(conn, stormy), stormy, "B" + tenant.id) == canonical(
        await snapshot(conn, calm), calm, "A" + tenant.id
    )
    assert all(p.status is PhaseStatus.RAN for p in rerun.phases_run)
    assert rerun.phase(Phase.EPISODIC_SUMMARY) is not None
