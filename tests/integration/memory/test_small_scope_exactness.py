"""A scope of 20 memories inside a database of 20,000 others gets exactly what a brute force over
its own (and its ancestors') memories gives — on the vector channel and on the fulltext
channel — although every crowding memory is closer to the query than any of its own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.lucene import build_query, escape, terms
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.retrieval.types import Channel
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import run_file

CROWD = 20_000
BATCH = 2_500
DIMS = 384
TEXT = "harbor lantern"
WORDS = ["harbor", "lantern", "ferry", "gull", "rope", "tide", "anchor", "buoy"]


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class FixedEmbeddings:
    """Embeds the test query as the crafted query vector (and anything else as noise)."""

    def __init__(self, query: np.ndarray) -> None:
        self.query = query.tolist()

    @property
    def dimensions(self) -> int:
        return DIMS

    async def embed(self, text: str) -> list[float]:
        return self.query

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.query for _ in texts]


@dataclass
class Crowd:
    scope: Scope
    query: np.ndarray


@pytest.fixture(scope="module")
async def crowd(store: GraphStore) -> AsyncIterator[Crowd]:
    """20,000 memories of another tenant, every one nearer the query than the small scope's
    and every one matching the query's words."""
    rng = np.random.default_rng(20_000)
    query = unit(rng.normal(size=DIMS))
    scope = Scope.root("org", f"crowd-{uuid.uuid4().hex[:12]}")
    try:
        for start in range(0, CROWD, BATCH):
            vectors = unit(query + 0.05 * rng.normal(size=(BATCH, DIMS)))
            nodes = [
                MemoryNode(layer=Layer.SEMANTIC if i % 2 else Layer.EPISODIC, embedding=v.tolist(),
                           content=" ".join([TEXT] * (1 + i % 3) + rng.choice(WORDS, size=i % 5).tolist()))
                for i, v in enumerate(vectors, start)
            ]  # fmt: skip
            await store.add_nodes(scope, nodes)
        yield Crowd(scope, query)
    finally:
        await store.delete_subtree(scope)


@dataclass
class Small:
    user: Scope
    visible: list[MemoryNode]
    vectors: np.ndarray


@pytest.fixture
async def small(store: GraphStore, tenant: Scope, crowd: Crowd) -> Small:
    """20 memories in tenant/user:u, 3 in the tenant (visible from it), 5 in a sibling (never)."""
    rng = np.random.default_rng(20)
    user = tenant.child("user", "u")
    alphas = np.linspace(0.0, 0.9, 23)
    vectors = unit(alphas[:, None] * crowd.query + rng.normal(size=(23, DIMS)) / np.sqrt(DIMS))
    texts = [" ".join(rng.choice([*WORDS, "kettle", "violin", "maple"], size=2 + i % 6).tolist()) for i in range(23)]
    nodes = [MemoryNode(layer=Layer.SEMANTIC if i % 3 else Layer.EPISODIC, content=t, embedding=v.tolist())
             for i, (t, v) in enumerate(zip(texts, vectors, strict=True))]  # fmt: skip
    await store.add_nodes(user, nodes[:20])
    await store.add_nodes(tenant, nodes[20:])
    sibling = tenant.child("user", "v")
    near = unit(crowd.query + 0.01 * rng.normal(size=(5, DIMS)))
    await store.add_nodes(sibling, [MemoryNode(layer=Layer.SEMANTIC, content=f"{TEXT} {TEXT} {TEXT}",
                                               embedding=v.tolist()) for v in near])  # fmt: skip
    return Small(user, nodes, vectors)


def brute_force_vector(small: Small, query: np.ndarray, k: int, layers: set[Layer] | None = None) -> list[str]:
    cos = small.vectors @ query
    order = sorted(range(len(small.visible)), key=lambda i: -cos[i])
    return [small.visible[i].id for i in order if layers is None or small.visible[i].layer in layers][:k]


@pytest.mark.parametrize("k", [1, 5, 10, 23, 50])
async def test_vector_search_is_exact_under_the_scope_filter(store: GraphStore, crowd: Crowd, small: Small,
                                                             k: int) -> None:  # fmt: skip
    hits = await store.search_vectors(small.user, crowd.query.tolist(), top_k=k)
    assert [h.id for h in hits] == brute_force_vector(small, crowd.query, k)
    cos = {n.id: float(v @ crowd.query) for n, v in zip(small.visible, small.vectors, strict=True)}
    for hit in hits:
        assert hit.score == pytest.approx((1 + cos[hit.id]) / 2, abs=1e-5)  # the index's (1 + cos) / 2


async def test_vector_search_is_exact_under_a_layer_filter_too(store: GraphStore, crowd: Crowd, small: Small) -> None:
    hits = await store.search_vectors(small.user, crowd.query.tolist(), top_k=5, layers=[Layer.EPISODIC])
    assert [h.id for h in hits] == brute_force_vector(small, crowd.query, 5, {Layer.EPISODIC})


async def test_the_recall_vector_channel_ranks_exactly(store: GraphStore, crowd: Crowd, small: Small) -> None:
    engine = RecallEngine(store, FixedEmbeddings(crowd.query), RecallConfig(candidates_per_channel=8,
                                                                            track_access=False))  # fmt: skip
    result = await engine.recall(small.user, "kettle violin maple", top_k=50)
    expected = brute_force_vector(small, crowd.query, 8)
    ranked = {i.channels[Channel.VECTOR]: i.node.id for i in result.items if Channel.VECTOR in i.channels}
    assert ranked and all(expected[r - 1] == nid for r, nid in ranked.items())
    visible = {n.id for n in small.visible}
    assert {i.node.id for i in result.items} <= visible


async def test_recall_through_the_vector_index_is_not_starved_by_the_crowd(
    store: GraphStore, crowd: Crowd, small: Small
) -> None:
    """The exact scan for small scopes turned off, the vector channel asks the index: on Neo4j
    5.26 its global top-k (at most 10,000 of the 20,000 crowding memories, every one nearer the
    query) holds none of the small scope's, and the scope filter afterwards leaves nothing — the
    statement's exact scan must answer; on 2026.x the index filters by scope itself."""
    engine = RecallEngine(store, FixedEmbeddings(crowd.query), RecallConfig(candidates_per_channel=8,
                                                                            track_access=False))  # fmt: skip
    engine.exact_scan_below = 0
    result = await engine.recall(small.user, "kettle violin maple", top_k=50)
    assert not result.degraded
    expected = brute_force_vector(small, crowd.query, 8)
    ranked = {i.channels[Channel.VECTOR]: i.node.id for i in result.items if Channel.VECTOR in i.channels}
    assert ranked and all(expected[r - 1] == nid for r, nid in ranked.items())
    assert expected[0] in {i.node.id for i in result.items}


def unrestricted(text: str) -> str:
    return "(" + " OR ".join(f"search_text:{escape(t)}" for t in terms(text)) + ")"


def own_matches(small: Small, text: str, layers: set[Layer] | None = None) -> set[str]:
    words = set(terms(text))
    return {n.id for n in small.visible
            if words & set(n.content.split()) and (layers is None or n.layer in layers)}  # fmt: skip


@pytest.mark.parametrize("layers", [None, [Layer.SEMANTIC]])
async def test_fulltext_search_is_exact_under_the_scope_filter(
    store: GraphStore, crowd: Crowd, small: Small, layers: list[Layer] | None
) -> None:
    visible = small.user.ancestor_keys()
    wanted = set(layers) if layers else None
    expected = own_matches(small, TEXT, wanted)
    assert 5 < len(expected) < 23
    brute = await run_file(store.conn, "search_fulltext_unfiltered", lucene=unrestricted(TEXT), visible=visible)
    brute = [r for r in brute if wanted is None or r["id"] in {n.id for n in small.visible if n.layer in wanted}]
    assert {r["id"] for r in brute} == expected
    scores = {r["id"]: r["score"] for r in brute}
    query = build_query(TEXT, visible, layers)
    for k in (100, 5, 1):
        rows = await store.conn.read(RetrievalQuery.SEARCH_FULLTEXT, lucene=query, visible=visible, k=k,
                                     vector=crowd.query.tolist())  # fmt: skip
        assert len(rows) == min(k, len(expected))
        assert {r["id"] for r in rows} <= expected
        for row in rows:  # the zero-boost filter changes which memories match, never their scores
            assert row["score"] == pytest.approx(scores[row["id"]], rel=1e-6)
        top = sorted((r["score"] for r in brute), reverse=True)[:k]
        assert [r["score"] for r in rows] == pytest.approx(top, rel=1e-6)
