"""Issue 9 #10: one key has one current version and one linear history under any
concurrency, and write-time dedup holds under concurrency. Each writer below is its own
orchestrator over its own connection, as several API workers would be: a lock held in one
Python process cannot be what makes these pass."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.memory.helpers import TickingClock
from tests.support.memory_internals import internals

WRITERS = 5
CALLS = 50


@pytest.fixture
async def workers(neo4j_server: tuple[str, str], hashing: HashingEmbeddings) -> AsyncIterator[list[Memory]]:
    """Five orchestrators, each with its own driver (its own connection pool)."""
    uri, password = neo4j_server
    out = []
    for _ in range(WRITERS):
        conn = await Neo4jConnection.connect(uri, password=password)
        out.append(Memory(GraphStore(conn), hashing, clock=TickingClock()))
    yield out
    for worker in out:
        await worker.close()


async def _facts(memory: Memory, scope: Scope) -> list:  # type: ignore[type-arg]
    return [n for n in await internals(memory).store.query_subtree(scope) if n.layer is Layer.SEMANTIC]


async def test_the_same_keyed_fact_fifty_times_at_once_is_one_fact(workers: list[Memory], tenant: Scope) -> None:
    await asyncio.gather(
        *(
            workers[i % WRITERS].remember(tenant, "Bob's city", "Bob lives in Lisbon.", key="bob.city")
            for i in range(CALLS)
        )
    )
    facts = await _facts(workers[0], tenant)
    assert len(facts) == 1, f"{len(facts)} facts for one key and one value"
    assert facts[0].superseded_by is None


async def test_fifty_values_of_one_key_at_once_leave_one_current_fact_and_a_linear_history(
    workers: list[Memory], tenant: Scope
) -> None:
    await asyncio.gather(
        *(
            workers[i % WRITERS].remember(tenant, f"Bob's city {i}", f"Bob lives in city number {i}.", key="bob.city")
            for i in range(CALLS)
        )
    )
    facts = await _facts(workers[0], tenant)
    current = [f for f in facts if f.superseded_by is None]
    assert len(current) == 1, f"{len(current)} current facts for one key"
    superseders = [f.superseded_by for f in facts if f.superseded_by is not None]
    assert len(superseders) == len(set(superseders)), "a version was superseded by two others (a forked history)"
    # one chain: follow superseded_by from the oldest version through every version
    by_id = {f.id: f for f in facts}
    pointed = set(superseders)
    [first] = [f for f in facts if f.id not in pointed]
    chain = [first.id]
    while by_id[chain[-1]].superseded_by is not None:
        chain.append(by_id[chain[-1]].superseded_by)  # type: ignore[arg-type]
    assert len(chain) == len(facts) == CALLS
    history = await workers[0].fact_history(tenant, "bob.city")
    assert [f.id for f in history] == chain


async def test_fifty_near_identical_facts_at_once_are_merged_into_one(workers: list[Memory], tenant: Scope) -> None:
    await asyncio.gather(
        *(
            workers[i % WRITERS].remember(tenant, "Bob's cat", "Bob has a grey cat called Miso" + "!" * (i % 3))
            for i in range(CALLS)
        )
    )
    facts = await _facts(workers[0], tenant)
    assert len(facts) == 1, f"{len(facts)} nodes for one fact"


async def test_sequential_writes_already_keep_one_fact(memory: Memory, tenant: Scope) -> None:
    """The baseline the concurrent tests hold the store to."""
    for _ in range(10):
        await memory.remember(tenant, "Bob's city", "Bob lives in Lisbon.", key="bob.city")
    for i in range(5):
        await memory.remember(tenant, "Bob's cat", "Bob has a grey cat called Miso" + "!" * (i % 3))
    facts = await _facts(memory, tenant)
    assert sorted(f.label for f in facts) == ["Bob's cat", "Bob's city"]
