"""Embeddings are stored as float32 arrays on every memory write path (half the bytes of a
double array to read in recall's exact scan), and the cosines Neo4j computes over them are the
same as over the vectors the caller gave: the vector index and ``vector.similarity.cosine``
compute in float32 either way."""

from __future__ import annotations

import numpy as np

from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore


def _vectors(n: int, seed: int) -> np.ndarray:
    """Unit vectors in float64 whose components are (almost all) not float32 values."""
    v = np.random.default_rng(seed).normal(size=(n, 384))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _as_float32(v: np.ndarray) -> list[float]:
    return v.astype(np.float32).astype(np.float64).tolist()


async def _stored(store: GraphStore, scope: Scope, node_id: str) -> list[float]:
    node = await store.get_node(scope, node_id, with_embedding=True)
    assert node is not None and node.embedding is not None
    return node.embedding


async def test_add_nodes_stores_float32_embeddings(store: GraphStore, tenant: Scope) -> None:
    vectors = _vectors(3, 1)
    assert vectors[0].tolist() != _as_float32(vectors[0])  # the test would prove nothing otherwise
    nodes = [MemoryNode(layer=Layer.EPISODIC, content=f"m{i}", embedding=v.tolist()) for i, v in enumerate(vectors)]
    await store.add_nodes(tenant, nodes)
    for node, v in zip(nodes, vectors, strict=True):
        assert await _stored(store, tenant, node.id) == _as_float32(v)


async def test_update_node_and_add_vectors_store_float32_embeddings(store: GraphStore, tenant: Scope) -> None:
    first, second, third = _vectors(3, 2)
    node = MemoryNode(layer=Layer.SEMANTIC, content="fact", embedding=first.tolist())
    await store.add_nodes(tenant, [node])
    await store.update_node(tenant, node.id, {"embedding": second.tolist()})
    assert await _stored(store, tenant, node.id) == _as_float32(second)
    await store.add_vectors(tenant, [node.id, "vec-new"], [third.tolist(), first.tolist()], documents=["a", "b"])
    assert await _stored(store, tenant, node.id) == _as_float32(third)
    assert await _stored(store, tenant, "vec-new") == _as_float32(first)
    await store.update_node(tenant, node.id, {"content": "fact, reworded"})  # no embedding given: kept
    assert await _stored(store, tenant, node.id) == _as_float32(third)


async def test_cosines_over_float32_storage_equal_those_over_the_given_vectors(
    store: GraphStore, tenant: Scope
) -> None:
    """What recall's exact scan computes (``vector.similarity.cosine`` over the stored
    embedding) is bit for bit what it computed over the caller's float64 vector."""
    vectors = _vectors(50, 3)
    query = _vectors(1, 4)[0]
    nodes = [MemoryNode(layer=Layer.EPISODIC, content=f"m{i}", embedding=v.tolist()) for i, v in enumerate(vectors)]
    await store.add_nodes(tenant, nodes)
    async with store.conn.driver.session(database=store.conn.database) as session:
        result = await session.run(
            "UNWIND $rows AS row MATCH (m:Memory {id: row.id}) "
            "RETURN row.id AS id, vector.similarity.cosine(m.embedding, $q) AS stored, "
            "vector.similarity.cosine(row.v, $q) AS given",
            rows=[{"id": n.id, "v": v.tolist()} for n, v in zip(nodes, vectors, strict=True)],
            q=query.tolist(),
        )
        rows = [r async for r in result]
    assert len(rows) == 50
    assert all(r["stored"] == r["given"] for r in rows)  # equal, not close
