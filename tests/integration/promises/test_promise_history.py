"""Issue 9 #4: superseded versions are history, not expired memories. Supersession sets
``valid_until`` on the old version; consolidation must not take that for expiry (phase 9.2
used to retract it and 9.5 to hard-delete it a week later). History keeps every version;
recall leaves old versions out by default."""

from __future__ import annotations

import time

from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.promises.conftest import Inspector
from tests.support.memory_internals import internals

DAY = 86_400.0


async def test_consolidation_keeps_superseded_versions_as_history(
    memory: Memory, tenant: Scope, conn: Neo4jConnection, inspector: Inspector
) -> None:
    versions = [
        await memory.remember(tenant, f"Bob lives in {city}", key="bob.city") for city in ("Porto", "Berlin", "Lisbon")
    ]
    expiring = await memory.remember(tenant, "The office is closed for the holidays", valid_from=time.time())
    await internals(memory).store.update_node(tenant, expiring.id, {"valid_until": time.time()})
    for days in (1, 9, 20):  # 9.2 would retract on day 1, 9.5 delete after the 7-day grace
        sleeper = SleepConsolidator(conn, ConsolidationConfig(), clock=lambda d=days: time.time() + d * DAY)
        await sleeper.run(tenant)
    history = await internals(memory).semantic.history(tenant, "bob.city")
    assert [f.id for f in history] == [v.id for v in versions]
    rows = await inspector.run("get_memories", ids=[v.id for v in versions])
    assert [bool(r["retracted"]) for r in rows] == [False, False, False]
    # a fact whose validity simply ran out (nothing superseded it) still expires
    assert await inspector.run("get_memories", ids=[expiring.id]) == []


async def test_recall_leaves_superseded_versions_out_by_default(memory: Memory, tenant: Scope) -> None:
    old = await memory.remember(tenant, "Bob lives in Porto near the river", key="bob.city")
    new = await memory.remember(tenant, "Bob lives in Berlin near the river", key="bob.city")
    result = await memory.recall(tenant, "where does Bob live near the river")
    assert new.id in result.ids and old.id not in result.ids
    assert [f.id for f in await internals(memory).semantic.history(tenant, "bob.city")] == [old.id, new.id]


async def test_a_time_travel_query_sees_the_version_current_then(memory: Memory, tenant: Scope) -> None:
    versions = [await memory.remember(tenant, f"Bob lives in {city}", key="bob.city") for city in ("Porto", "Berlin")]
    old, new = versions
    assert old.valid_from is not None and new.valid_from is not None
    assert await internals(memory).semantic.as_of(tenant, "bob.city", old.valid_from - 1.0) is None
    then = await internals(memory).semantic.as_of(tenant, "bob.city", (old.valid_from + new.valid_from) / 2)
    assert then is not None and then.id == old.id
    now = await internals(memory).semantic.as_of(tenant, "bob.city", time.time() + 60.0)
    assert now is not None and now.id == new.id
