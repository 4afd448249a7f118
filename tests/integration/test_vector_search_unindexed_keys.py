"""A visible scope that holds no vector (a parent with no memories of its own, an org whose
memories all sit in its users) is searched like any other: every statement that asks the vector
index by scope key leaves such keys out, because Neo4j 2026.08 fails a filtered ``SEARCH`` whose
key matches no document once a segment of the index has deletions (Lucene reads past a small
segment's live-docs bitset: ``Index 33554431 out of bounds for length 1``)."""

from __future__ import annotations

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.engine import RecallEngine, StagedRecallEngine
from hippograph.scope import Scope
from hippograph.store import GraphStore

TEXTS = [
    f"deploy the web service, step {i}: {w}"
    for i, w in enumerate("build push tag restart verify roll watch note".split())
]


@pytest.fixture
async def user(store: GraphStore, tenant: Scope) -> Scope:
    """Eight memories in a user under an org that has none; one deleted, so the vector index
    has a segment with a deletion."""
    embedder = HashingEmbeddings()
    user = tenant.child("user", "u")
    nodes = [MemoryNode(layer=Layer.SEMANTIC, content=t, embedding=await embedder.embed(t)) for t in TEXTS]
    await store.add_nodes(user, nodes)
    assert await store.delete_node(user, nodes[0].id)
    return user


async def test_the_store_search_skips_a_key_without_vectors(store: GraphStore, user: Scope) -> None:
    hits = await store.search_vectors(user, await HashingEmbeddings().embed("deploy the web service"), top_k=3)
    assert len(hits) == 3


@pytest.mark.parametrize("engine_type", [RecallEngine, StagedRecallEngine], ids=["one statement", "staged"])
async def test_recall_through_the_index_skips_a_key_without_vectors(
    store: GraphStore, user: Scope, engine_type: type[RecallEngine] | type[StagedRecallEngine]
) -> None:
    engine = engine_type(store, HashingEmbeddings(), RecallConfig(track_access=False, top_k=10))
    engine.exact_scan_below = 0  # ask the index, not the exact scan
    result = await engine.recall(user, "How do we deploy the web service?")
    assert result.degraded == []
    assert len(result.items) == len(TEXTS) - 1
