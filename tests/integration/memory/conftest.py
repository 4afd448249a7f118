"""Fixtures of the memory tests: the two embedders, a strictly increasing clock and a
``Memory`` over the session's store. Every test still works in its own ``tenant``
scope (erased afterwards); the memory drains its background bookkeeping before that."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from hippograph.embeddings import HashingEmbeddings, SentenceTransformerEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import TickingClock
from tests.support.memory_internals import internals


@pytest.fixture(scope="session")
def hashing() -> HashingEmbeddings:
    return HashingEmbeddings()


@pytest.fixture(scope="session")
def minilm() -> SentenceTransformerEmbeddings:
    """The real MiniLM (loaded once; a few seconds)."""
    embedder = SentenceTransformerEmbeddings()
    embedder.encode_sync(["warm up"])
    return embedder


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock()


@pytest.fixture
async def memory(store: GraphStore, hashing: HashingEmbeddings, clock: TickingClock,
                 tenant: Scope) -> AsyncIterator[Memory]:  # fmt: skip
    """Bag-of-words embeddings: deterministic, shared words ⇒ similar vectors."""
    built = Memory(store, hashing, clock=clock)
    yield built
    await internals(built).engine.drain()


@pytest.fixture
async def semantic_memory(store: GraphStore, minilm: SentenceTransformerEmbeddings, clock: TickingClock,
                          tenant: Scope) -> AsyncIterator[Memory]:  # fmt: skip
    """MiniLM embeddings, for the tests where meaning matters."""
    built = Memory(store, minilm, clock=clock)
    yield built
    await internals(built).engine.drain()
