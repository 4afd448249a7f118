"""The vector index filters by scope inside the index (one range search over the scope chain,
``SEARCH … WHERE m.scope_lo <= $at AND m.scope_hi > $at``): a 20-memory scope inside thousands
of others, every one nearer the query, gets exactly the brute-force top-k from the in-index
search alone (no exact fallback); so does a small chain of ancestors whose near-miss siblings
(ids one character longer, other namespaces) crowd the index; a medium scope gets an
approximation whose overlap with the exact top-k is bounded below."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore
from hippograph.store.queries import MemoryQuery

DIMS = 384
MEDIUM_RECALL_BOUND = 0.9
"""Mean share of the exact top 20 that the in-index search (40 for the chain) finds for a scope of
1,500 among 6,000 clustered memories (measured ≈ 1.0 on Neo4j 2026.08.1; the bound leaves room)."""


@pytest.fixture(autouse=True)
def _search_clause(store: GraphStore) -> None:
    if not store.conn.capabilities.supports_search_clause:
        pytest.skip("filtering inside the vector index needs Neo4j 2026.x (Cypher 25 SEARCH)")


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


async def _add(store: GraphStore, scope: Scope, vectors: np.ndarray) -> list[str]:
    ids: list[str] = []
    for start in range(0, len(vectors), 1000):
        nodes = [MemoryNode(layer=Layer.EPISODIC, embedding=v.tolist()) for v in vectors[start : start + 1000]]
        await store.add_nodes(scope, nodes)
        ids += [n.id for n in nodes]
    return ids


async def _searched(store: GraphStore, scope: Scope, query: np.ndarray, k: int, fetch_k: int) -> list[dict]:
    return await store.conn.read(
        MemoryQuery.SEARCH_VECTOR_SCOPED,
        vector=query.tolist(),
        visible=scope.ancestor_keys(),
        chain=scope.chain_points(),
        floor="",
        layers=None,
        k=k,
        fetch_k=fetch_k,
    )


async def test_a_small_scope_gets_the_brute_force_top_k_from_the_index_alone(store: GraphStore) -> None:
    rng = np.random.default_rng(11)
    queries = unit(rng.normal(size=(20, DIMS)))
    crowd = Scope.root("org", f"crowd-{uuid.uuid4().hex[:8]}")
    small = Scope.root("org", f"small-{uuid.uuid4().hex[:8]}").child("user", "u")
    try:
        # 4,000 crowding memories in 4 scopes, each near one of the queries
        for i in range(4):
            near = unit(queries[i * 5 : i * 5 + 5].mean(axis=0) + 0.05 * rng.normal(size=(1000, DIMS)))
            await _add(store, crowd.child("team", f"t{i}"), near)
        mine = unit(rng.normal(size=(20, DIMS)))
        ids = await _add(store, small, mine)
        for query in queries:
            cosines = mine @ query
            order = np.argsort(-cosines)[:10]
            rows = await _searched(store, small, query, k=10, fetch_k=10)
            assert [r["id"] for r in rows] == [ids[i] for i in order]
            assert np.allclose([r["score"] for r in rows], (1 + cosines[order]) / 2, atol=1e-6)
    finally:
        await store.delete_subtree(crowd)
        await store.delete_subtree(small.parent or small)


async def test_a_small_chain_gets_the_brute_force_top_k_over_all_its_ancestors(store: GraphStore) -> None:
    rng = np.random.default_rng(13)
    queries = unit(rng.normal(size=(10, DIMS)))
    root = Scope.root("org", f"chain-{uuid.uuid4().hex[:8]}")
    team = root.child("team", "c.Ω")
    leaf = team.child("user", "bob-1").in_namespace("ns-a")
    chain = leaf.ancestors()  # org, org@ns-a, team, team@ns-a, leaf path, leaf
    near_misses = [
        root.child("team", "c.Ω-"),  # the team's id and one more character
        team.child("user", "bob-10"),
        team.child("user", "bob"),
        team.in_namespace("ns-b"),
        leaf.in_namespace("ns-a2"),
        root.in_namespace("ns"),
    ]
    try:
        for i, near in enumerate(near_misses):
            crowd = unit(queries[i % len(queries)] + 0.05 * rng.normal(size=(600, DIMS)))
            await _add(store, near, crowd)
        mine = unit(rng.normal(size=(5 * len(chain), DIMS)))
        ids: list[str] = []
        for n, scope in enumerate(chain):
            ids += await _add(store, scope, mine[5 * n : 5 * n + 5])
        for query in queries:
            cosines = mine @ query
            order = np.argsort(-cosines)[:10]
            rows = await _searched(store, leaf, query, k=10, fetch_k=10)
            assert [r["id"] for r in rows] == [ids[i] for i in order]
        for query in queries[:3]:  # the path alone sees no namespace
            rows = await _searched(store, leaf.path, query, k=20, fetch_k=20)
            path_ids = {i for n, s in enumerate(chain) if s.namespace is None for i in ids[5 * n : 5 * n + 5]}
            assert {r["id"] for r in rows} == path_ids
    finally:
        await store.delete_subtree(root)  # the namespaces and near misses are all below it


async def test_a_medium_scope_finds_most_of_the_exact_top_k(store: GraphStore) -> None:
    rng = np.random.default_rng(12)
    centres = unit(rng.normal(size=(30, DIMS)))

    def clustered(n: int) -> np.ndarray:
        return unit(centres[rng.integers(0, len(centres), n)] + 0.08 * rng.normal(size=(n, DIMS)))

    root = Scope.root("org", f"medium-{uuid.uuid4().hex[:8]}")
    medium = root.child("team", "m")
    try:
        for i in range(3):
            await _add(store, root.child("team", f"other{i}"), clustered(1500))
        mine = clustered(1500)
        ids = await _add(store, medium, mine)
        shares = []
        for query in unit(centres[:20] + 0.05 * rng.normal(size=(20, DIMS))):
            exact = {ids[i] for i in np.argsort(-(mine @ query))[:20]}
            rows = await _searched(store, medium, query, k=20, fetch_k=40)
            assert len(rows) == 20
            shares.append(len(exact & {r["id"] for r in rows}) / 20)
        assert float(np.mean(shares)) >= MEDIUM_RECALL_BOUND, shares
    finally:
        await store.delete_subtree(root)
