"""A small scope inside a big database gets exactly what a brute force over its own
memories gives, even when other tenants crowd the vector index's top-k."""

from __future__ import annotations

import uuid

import numpy as np

from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore


async def test_small_scope_is_exact_under_a_crowded_index(store: GraphStore) -> None:
    rng = np.random.default_rng(7)
    query = rng.normal(size=384)
    query /= np.linalg.norm(query)
    big = Scope.root("org", f"crowd-{uuid.uuid4().hex[:8]}")
    small = Scope.root("org", f"small-{uuid.uuid4().hex[:8]}").child("user", "u")
    try:
        # 3,000 crowding vectors all very close to the query
        crowd = query + 0.05 * rng.normal(size=(3000, 384))
        crowd /= np.linalg.norm(crowd, axis=1, keepdims=True)
        for start in range(0, 3000, 1000):
            await store.add_nodes(
                big, [MemoryNode(layer=Layer.EPISODIC, embedding=v.tolist()) for v in crowd[start : start + 1000]]
            )
        mine = rng.normal(size=(20, 384))
        mine /= np.linalg.norm(mine, axis=1, keepdims=True)
        nodes = [MemoryNode(layer=Layer.SEMANTIC, embedding=v.tolist()) for v in mine]
        await store.add_nodes(small, nodes)
        expected = [nodes[i].id for i in np.argsort(-(mine @ query))[:10]]
        hits = await store.search_vectors(small, query.tolist(), top_k=10)
        assert [h.id for h in hits] == expected
        assert all(0.0 <= h.score <= 1.0 for h in hits)
    finally:
        await store.delete_subtree(big)
        await store.delete_subtree(small.parent or small)
