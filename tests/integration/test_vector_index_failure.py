"""The vector index failing inside the server does not fail a search. Neo4j 2026.08 raises an
internal error (``Neo.DatabaseError.Statement.ExecutionFailed``: Lucene reads past a small
segment's live-docs bitset) for filtered vector searches once a small segment of the index has
deletions; every path that asks the index by scope key then answers with the exact scan: the
store's search, the staged recall, and the one-statement recall (run again with the exact scan,
so it is not degraded)."""

from __future__ import annotations

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.recall_oracle import StagedRecallEngine

WORDS = "build push tag restart verify roll watch note".split()


async def _write(store: GraphStore, scope: Scope, texts: list[str]) -> list[MemoryNode]:
    embedder = HashingEmbeddings()
    nodes = [MemoryNode(layer=Layer.SEMANTIC, content=t, embedding=await embedder.embed(t)) for t in texts]
    await store.add_nodes(scope, nodes)
    return nodes


@pytest.fixture
async def ana(store: GraphStore, tenant: Scope) -> Scope:
    """Eight memories of Ana's; then another user's ten, one of them deleted at once (a small
    index segment with a deletion: the state the server fails in)."""
    ana = tenant.child("user", "ana")
    await _write(store, ana, [f"deploy the web service, step {i}: {w}" for i, w in enumerate(WORDS)])
    other = await _write(store, tenant.child("user", "bo"), [f"bake bread, step {i}" for i in range(10)])
    assert await store.delete_node(tenant.child("user", "bo"), other[1].id)
    return ana


async def test_the_store_search_answers(store: GraphStore, ana: Scope) -> None:
    hits = await store.search_vectors(ana, await HashingEmbeddings().embed("deploy the web service"), top_k=3)
    assert len(hits) == 3


@pytest.mark.parametrize("engine_type", [RecallEngine, StagedRecallEngine], ids=["one statement", "staged"])
async def test_recall_through_the_index_answers_undegraded(
    store: GraphStore, ana: Scope, engine_type: type[RecallEngine] | type[StagedRecallEngine]
) -> None:
    engine = engine_type(store, HashingEmbeddings(), RecallConfig(track_access=False, top_k=10))
    engine.exact_scan_below = 0  # ask the index, not the exact scan
    result = await engine.recall(ana, "How do we deploy the web service?")
    assert result.degraded == []
    assert len(result.items) == len(WORDS)
