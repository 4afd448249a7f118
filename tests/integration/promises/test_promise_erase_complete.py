"""Issue 9 #1: an erase is complete. After ``forget(scope)`` nothing in the database carries
the erased scope's key or an erased memory's id: not the edges written on the erased scope's
behalf between its ancestors' memories, not provenance lists naming its episodes, not the
bookkeeping of an ancestor's consolidation (watermarks, audit entries), not an index."""

from __future__ import annotations

import time

import pytest

from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, Relationship
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from hippograph.store.erase import erase_subtree
from tests.integration.promises.conftest import Inspector
from tests.support.memory_internals import internals

DAY = 86_400.0
WORD = "zanzibarquux"  # only the erased scope ever says it


async def _busy_tree(memory: Memory, org: Scope, conn: Neo4jConnection) -> tuple[Scope, Scope, list[str]]:
    """An org with two users; alice (to be erased) has a conversation below her and has been
    busy: facts, a near-copy of an org fact, an ingested chat, links between the org's facts,
    recalls, consolidation at her scope and at the org's, a restore from the org."""
    alice, bob = org.child("user", "alice"), org.child("user", "bob")
    chat = alice.child("conversation", "c1")
    f1 = await memory.remember(org, "expenses policy", "Expenses are approved by Ana in finance.")
    f2 = await memory.remember(org, "travel policy", "Travel is booked through the travel desk.")
    await memory.remember(bob, "bob's team", "Bob works in the platform team.")
    await memory.remember(alice, "alice's pet", f"Alice has a parrot called {WORD}.")
    await memory.remember(alice, "expenses", "Expenses are approved by Ana in finance, says Alice.", importance=3.0)
    turns = [
        {"turn_id": str(i), "session_id": "s1", "speaker": "Alice", "text": f"{text} {WORD}"}
        for i, text in enumerate(["I booked travel for Lisbon.", "Expenses went to Ana.", "The parrot talks."])
    ]
    episodes = await memory.ingest(chat, turns)
    # written on alice's behalf between memories of her ancestors
    await internals(memory).semantic.link(alice, f1.id, f2.id, Relationship.RELATES_TO)
    await internals(memory).store.upsert_edges(
        org,
        [
            MemoryEdge(
                source=f2.id, target=f1.id, relationship=Relationship.CAUSES, source_episodic_ids=[episodes[0].id]
            )
        ],
    )
    for scope, query in [(alice, "who approves expenses"), (chat, "travel Lisbon expenses"), (alice, WORD)]:
        await memory.recall(scope, query)
    await internals(memory).engine.drain()
    later = time.time() + DAY
    sleeper = SleepConsolidator(conn, ConsolidationConfig(), clock=lambda: later)
    await sleeper.run(alice)
    await sleeper.run(org)
    retracted = [
        n
        for n in await internals(memory).store.query_subtree(alice, {"include_retracted": True}, limit=None)
        if n.retracted
    ]
    for node in retracted:
        await sleeper.restore(org, node.id, "carol")
    ids = [n.id for n in await internals(memory).store.query_subtree(alice, {"include_retracted": True}, limit=None)]
    return alice, bob, ids


async def test_nothing_carries_an_erased_scopes_key_or_ids(
    memory: Memory, tenant: Scope, conn: Neo4jConnection, inspector: Inspector
) -> None:
    alice, bob, erased = await _busy_tree(memory, tenant, conn)
    assert len(erased) >= 5
    bob_before = {n.id for n in await internals(memory).store.query_nodes(bob, limit=None)}
    vector = await internals(memory).services.embedder.embed(f"Alice has a parrot called {WORD}.")
    await memory.forget(alice)
    left = await inspector.run("search_named_anywhere", key=alice.key, ids=erased)
    assert left == [], "\n".join(f"{r['kind']} {r['what']} {r['owner']}.{r['k']} = {r['value']}" for r in left)
    [indexed] = await inspector.run(
        "search_indexes_for", vector=vector, lucene=WORD, vector_index=conn.capabilities.vector_index
    )
    assert set(indexed["ids"]).isdisjoint(erased)
    assert {n.id for n in await internals(memory).store.query_nodes(bob, limit=None)} == bob_before
    assert await internals(memory).store.query_subtree(alice, {"include_retracted": True}, limit=None) == []
    assert [
        n for n in await internals(memory).store.query_nodes(bob, {"layers": [Layer.SEMANTIC]}) if WORD in n.content
    ] == []


async def test_an_interrupted_erase_is_hidden_at_once_and_finished_by_erasing_again(
    memory: Memory, tenant: Scope, conn: Neo4jConnection
) -> None:
    user = tenant.child("user", "ana")
    for i in range(6):
        await memory.remember(user, f"fact {i}", f"Ana's {WORD} fact number {i} is remembered.")
    assert (await memory.recall(user, WORD)).items

    def die(done: int, total: int) -> None:
        raise RuntimeError(f"died after {done} of {total}")

    with pytest.raises(RuntimeError, match=r"died after \d of 6") as died:
        await erase_subtree(conn, user, now=time.time(), batch=2, progress=die)
    done = int(str(died.value).split()[2])  # a batch is two nodes: memories, or their cues
    async with conn.driver.session(database=conn.database) as session:
        record = await (await session.run("MATCH (m:Memory {scope_key: $k}) RETURN count(m) AS n", k=user.key)).single()
    assert record is not None and record["n"] == 6 - done >= 4  # the erase stopped early ...
    assert (await memory.recall(user, WORD)).items == []  # ... but recall honours its tombstone
    assert await internals(memory).store.query_subtree(user, limit=None) == []  # ... and so does every read
    assert await memory.forget(user) == 6 - done  # erasing again finishes it
    assert await internals(memory).store.query_subtree(user, limit=None) == []
