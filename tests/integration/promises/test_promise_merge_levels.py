"""Issue 9 #3: a merge never hides an ancestor's fact. Phase 13 used to pick the survivor by
importance, so a run over an org could soft-retract the org's fact in favour of one user's
near-duplicate, and every sibling user lost it. Across scope levels the shallower fact is
kept; the deeper duplicate may be folded into it."""

from __future__ import annotations

import math
import random

from hippograph.consolidation import ConsolidationConfig, Phase, SleepConsolidator
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.promises.conftest import Inspector
from tests.support.memory_internals import internals


def _unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(384)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def _near(v: list[float], rng: random.Random) -> list[float]:
    w = [x + rng.gauss(0.0, 0.05 / math.sqrt(len(v))) for x in v]
    n = math.sqrt(sum(x * x for x in w))
    return [x / n for x in w]


async def test_a_run_over_the_org_never_retracts_the_org_fact_for_a_users_duplicate(
    memory: Memory, tenant: Scope, conn: Neo4jConnection, inspector: Inspector
) -> None:
    rng = random.Random(tenant.key)
    base = _unit(rng)
    alice, bob = tenant.child("user", "alice"), tenant.child("user", "bob")
    [policy] = await internals(memory).store.add_nodes(
        tenant,
        [MemoryNode(layer=Layer.SEMANTIC, label="expenses policy", content="Expenses go through Ana.", embedding=base)],
    )
    [copy] = await internals(memory).store.add_nodes(
        alice,
        [
            MemoryNode(
                layer=Layer.SEMANTIC,
                label="expenses policy (mine)",
                content="Expenses go through Ana, always.",
                importance=9.0,  # more important than the org's: the old survivor rule picked it
                embedding=_near(base, rng),
            )
        ],
    )
    report = await SleepConsolidator(conn, ConsolidationConfig()).run(tenant, only=[Phase.SEMANTIC_MERGE])
    assert report.phase(Phase.SEMANTIC_MERGE).counts["merged"] <= 1  # type: ignore[union-attr]
    [row] = await inspector.run("get_memories", ids=[policy.id])
    assert not row["retracted"], "the org's fact was retracted in favour of one user's copy"
    seen_by_bob = {n.id for n in await internals(memory).store.query_nodes(bob, {"layers": [Layer.SEMANTIC]})}
    assert policy.id in seen_by_bob  # the sibling user keeps the org's fact
    [kept] = await inspector.run("get_memories", ids=[copy.id])
    assert kept["scope_key"] == alice.key
