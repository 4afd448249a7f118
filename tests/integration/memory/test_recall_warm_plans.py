"""``Memory.connect`` has the server plan the recall statement in the background: the run
reads nothing and writes nothing, recalls afterwards answer as without it, and ``close``
stops it — finished or still planning — leaving no task behind."""

from __future__ import annotations

import asyncio

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.retrieval.config import RecallConfig
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.memory_internals import internals


def _warm_tasks() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == "hippograph-recall-warm-plans"]


async def _count(store: GraphStore) -> int:
    """Every node and relationship of the database (a probe of this test, not a catalogued query)."""
    records, _, _ = await store.conn.driver.execute_query(
        "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) + count(r) AS n", database_=store.conn.database
    )
    return int(records[0]["n"])


async def test_connect_warms_the_plan_and_close_leaves_nothing(
    neo4j_server: tuple[str, str], store: GraphStore, tenant: Scope
) -> None:
    uri, password = neo4j_server
    before = await _count(store)
    memory = await Memory.connect(uri, password=password, embedder=HashingEmbeddings())
    try:
        task = internals(memory).engine._warming
        assert task is not None
        await asyncio.wait_for(internals(memory).engine._after_warming(), 300)
        assert task.done() and not task.cancelled() and task.exception() is None
        assert await _count(store) == before  # nothing written
        scope = tenant.child("user", "w")
        await memory.remember(scope, "garden", "the piano stands in the garden")
        cfg = RecallConfig(track_access=False)
        cold = Memory(store, HashingEmbeddings(), recall_config=cfg)  # never warmed
        a = await internals(memory).engine.recall(scope, "piano garden", config=cfg)
        b = await internals(cold).engine.recall(scope, "piano garden", config=cfg)
        assert [i.node.id for i in a.items] == [i.node.id for i in b.items] and a.items
        assert [i.score for i in a.items] == [i.score for i in b.items]
    finally:
        await memory.close()
    assert _warm_tasks() == [] and internals(memory).engine._warming is None


async def test_close_during_the_warming_cancels_it(neo4j_server: tuple[str, str]) -> None:
    uri, password = neo4j_server
    memory = await Memory.connect(uri, password=password, embedder=HashingEmbeddings())
    task = internals(memory).engine._warming
    assert task is not None and not task.done()
    await memory.close()
    assert task.done() and _warm_tasks() == []


async def test_warm_plans_false_starts_nothing(neo4j_server: tuple[str, str]) -> None:
    uri, password = neo4j_server
    memory = await Memory.connect(uri, password=password, embedder=HashingEmbeddings(), warm_plans=False)
    try:
        assert internals(memory).engine._warming is None and _warm_tasks() == []
    finally:
        await memory.close()
