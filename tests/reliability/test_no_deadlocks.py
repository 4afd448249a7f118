"""Concurrent recalls that return overlapping memories in different orders write their access
counts without a deadlock: not only does none reach a caller (the driver would retry it), the
server detects none. Each recall bumps the access counts of what it returned (in rank order)
and the spreading counts of what activation visited; when two recalls lock the same memories in
opposite orders, Neo4j detects a deadlock and the driver retries one of them, at a cost of a
second or so of back-off."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.support.load import DEADLOCK
from tests.support.memory_internals import internals

WORKERS = 5
TOPICS = 12
RECALLS = 60


@pytest.fixture
async def workers(neo4j_server: tuple[str, str]) -> AsyncIterator[list[Memory]]:
    uri, password = neo4j_server
    out = []
    for _ in range(WORKERS):
        conn = await Neo4jConnection.connect(uri, password=password)
        out.append(Memory(GraphStore(conn), HashingEmbeddings()))
    yield out
    for worker in out:
        await worker.close()


async def test_concurrent_recalls_detect_no_deadlock(workers: list[Memory], tenant: Scope) -> None:
    user = tenant.child("user", "ana")
    first = workers[0]
    topics = [f"topic{i}" for i in range(TOPICS)]
    memories = [
        await first.remember(user, f"{a} and {b}", f"Ana talked about {a} and {b} on day {n}.")
        for n, (a, b) in enumerate((a, b) for a in topics for b in topics[:4] if a != b)
    ]
    for a, b in itertools.pairwise(memories):  # a chain, so activation spreads
        await internals(first).store.link(user, a.id, b.id, Relationship.RELATES_TO)
    await internals(first).engine.drain()
    ids = sorted({m.id for m in memories})  # remember may return one memory for two near-duplicates
    before = sum(m.access_count for m in await internals(first).store.get_nodes(user, ids))

    async def recall(i: int) -> int:
        query = f"What did Ana say about {topics[i % TOPICS]} and {topics[(i * 5 + 1) % TOPICS]}?"
        return len((await workers[i % WORKERS].recall(user, query)).items)

    found = await asyncio.gather(*(recall(i) for i in range(RECALLS)))
    for worker in workers:
        await internals(worker).engine.drain()

    assert all(n > 0 for n in found)
    deadlocks = sum(internals(w).store.conn.transient_faults[DEADLOCK] for w in workers)
    assert deadlocks == 0, f"Neo4j detected {deadlocks} deadlocks between concurrent recalls"
    after = sum(m.access_count for m in await internals(first).store.get_nodes(user, ids))
    assert after - before == sum(found), "a lost access-count update"
