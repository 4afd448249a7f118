"""Ingest in pipelined chunks (the next chunk embedded while one is written) ends in the same
graph as ingest in one chunk, and a crashed ingest is resumed by running it again: the turns
already stored are neither embedded nor written again, and nothing is duplicated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import ConversationTurn, Memory
from hippograph.memory.ingest import ingest_conversation
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import TickingClock, edges_of, raw_memories, run_file
from tests.support.memory_internals import internals

DAY = 1_683_504_000.0
WRITTEN_AT = {"created_at", "updated_at", "last_accessed", "tx_token"}


def history(sessions: int = 3, per_session: int = 9) -> list[ConversationTurn]:
    """Sessions interleaved, turns of very different lengths (they are batched by length)."""
    turns = []
    for i in range(per_session):
        for s in range(sessions):
            words = " ".join(f"w{s}{i}{k}" for k in range(1 + (i * 7 + s * 3) % 40))
            turns.append(
                ConversationTurn(
                    turn_id=f"S{s}:{i}",
                    session_id=f"session_{s}",
                    speaker=("Ann", "Bo")[i % 2],
                    text=f"turn {i} of {s}: {words}",
                    occurred_at=DAY + s * 86_400 + i,
                )
            )
    return turns


class CountingEmbedder:
    """Hashing embeddings that count the texts embedded and can fail on the n-th batch."""

    def __init__(self, fail_on_batch: int | None = None) -> None:
        self.inner = HashingEmbeddings()
        self.dimensions = self.inner.dimensions
        self.fail_on_batch = fail_on_batch
        self.batches = 0
        self.texts = 0

    async def embed(self, text: str) -> list[float]:
        return await self.inner.embed(text)

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches += 1
        if self.batches == self.fail_on_batch:
            raise RuntimeError("the embedder died")
        self.texts += len(texts)
        return await self.inner.embed_batch(texts)


async def end_state(memory: Memory, scope: Scope) -> dict[str, Any]:
    """The scope's memories, embeddings, edges and session cues, keyed by turn id (ids and
    write times differ between scopes)."""
    nodes = await raw_memories(internals(memory).store.conn, scope)
    full = await internals(memory).store.get_nodes(scope, list(nodes), with_embedding=True)
    turn_of = {n.id: str(n.properties["turn_id"]) for n in full}
    memories = {
        turn_of[nid]: {
            k: v for k, v in m.items() if k not in WRITTEN_AT | {"id", "scope_key", "scope_lo", "scope_hi", "scope_tag"}
        }
        for nid, m in nodes.items()
    }
    embeddings = {turn_of[n.id]: [round(x, 5) for x in n.embedding or []] for n in full}
    edges = sorted(
        (e["type"], turn_of[e["source"]], turn_of[e["target"]], e["weight"])
        for e in await edges_of(internals(memory).store.conn, scope)
    )
    cues = {}
    for s in range(3):
        rows = await run_file(
            internals(memory).store.conn, "get_cue_members", kind="session", key=f"session_{s}", visible=[scope.key]
        )
        cues[s] = sorted(turn_of[i] for i in rows[0]["ids"])
    return {"memories": memories, "embeddings": embeddings, "edges": edges, "cues": cues}


async def test_pipelined_ingest_ends_as_a_sequential_one(memory: Memory, tenant: Scope) -> None:
    turns = history()
    pipelined, sequential = tenant.child("conv", "pipelined"), tenant.child("conv", "sequential")
    await ingest_conversation(internals(memory).services, internals(memory).episodic, pipelined, turns, batch_size=4)
    await ingest_conversation(
        internals(memory).services, internals(memory).episodic, sequential, turns, batch_size=len(turns)
    )
    a, b = await end_state(memory, pipelined), await end_state(memory, sequential)
    assert len(a["memories"]) == len(turns) and len(a["edges"]) == len(turns) - 3
    assert a == b


async def test_a_crashed_ingest_is_resumed_without_duplicates(
    store: GraphStore, clock: TickingClock, tenant: Scope
) -> None:
    turns = history()
    crashed, reference = tenant.child("conv", "crashed"), tenant.child("conv", "in-one-go")
    crashing = Memory(store, CountingEmbedder(fail_on_batch=3), clock=clock)
    with pytest.raises(RuntimeError, match="embedder died"):
        await ingest_conversation(
            internals(crashing).services, internals(crashing).episodic, crashed, turns, batch_size=4
        )
    before = await raw_memories(store.conn, crashed)
    assert 0 < len(before) < len(turns)

    again = CountingEmbedder()
    memory = Memory(store, again, clock=clock)
    stored = await ingest_conversation(
        internals(memory).services, internals(memory).episodic, crashed, turns, batch_size=4
    )
    assert len(stored) == len(turns)
    assert again.texts == len(turns) - len(before)  # the stored turns were not embedded again
    after = await raw_memories(store.conn, crashed)
    assert len(after) == len(turns) and {k: after[k] for k in before} == before

    await ingest_conversation(internals(memory).services, internals(memory).episodic, reference, turns, batch_size=4)
    assert await end_state(memory, crashed) == await end_state(memory, reference)

    third = CountingEmbedder()
    rerun = Memory(store, third, clock=clock)
    await ingest_conversation(internals(rerun).services, internals(rerun).episodic, crashed, turns, batch_size=4)
    assert third.texts == 0 and await raw_memories(store.conn, crashed) == after
