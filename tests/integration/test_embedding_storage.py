"""Embeddings are stored as float32 arrays on every memory write path (half the bytes of a
double array to read in recall's exact scan; the vector index keeps float32 anyway), and the
cosines Neo4j computes over them stay within a float32 rounding of those over the vectors the
caller gave (``vector.similarity.cosine`` rounds its result to float32: about one memory in 20
moves by one unit in the last place)."""

from __future__ import annotations

import random

import numpy as np

from hippograph.consolidation import ConsolidationConfig, Phase, SleepConsolidator
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore
from hippograph.store.locked import LockedTx, run_locked
from tests.integration.consolidation.sleep_helpers import DAY, NOW, event, near, unit_vector


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


async def test_adding_an_existing_id_again_keeps_its_embedding(store: GraphStore, tenant: Scope) -> None:
    """add_nodes is idempotent by id: a second add of the same memory writes no vector."""
    first, second = _vectors(2, 5)
    node = MemoryNode(layer=Layer.EPISODIC, content="once", embedding=first.tolist())
    await store.add_nodes(tenant, [node])
    await store.add_nodes(tenant, [node.model_copy(update={"embedding": second.tolist()})])
    assert await _stored(store, tenant, node.id) == _as_float32(first)


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


def _is_float32(vector: list[float]) -> bool:
    return vector == _as_float32(np.asarray(vector))


async def test_the_locked_update_stores_a_float32_embedding(store: GraphStore, tenant: Scope) -> None:
    """The semantic layer's locked transaction updates a fact's embedding as update_node does."""
    first, second = _vectors(2, 6)
    node = MemoryNode(layer=Layer.SEMANTIC, content="fact", embedding=first.tolist())
    await store.add_nodes(tenant, [node])

    async def work(tx: LockedTx) -> MemoryNode:
        [current] = await tx.get_nodes([node.id])
        return await tx.update_node(current, {"embedding": second.tolist()})

    await run_locked(store, tenant, ["fact"], work)
    assert await _stored(store, tenant, node.id) == _as_float32(second)


async def test_update_and_add_vectors_clear_an_embedding_they_are_given_none_or_zero_for(
    store: GraphStore, tenant: Scope
) -> None:
    first, second = _vectors(2, 7)
    a = MemoryNode(layer=Layer.SEMANTIC, content="a", embedding=first.tolist())
    b = MemoryNode(layer=Layer.SEMANTIC, content="b", embedding=second.tolist())
    await store.add_nodes(tenant, [a, b])
    await store.update_node(tenant, a.id, {"embedding": None})
    await store.add_vectors(tenant, [b.id], [[0.0] * 384], documents=["b"])
    for node_id in (a.id, b.id):
        stored = await store.get_node(tenant, node_id, with_embedding=True)
        assert stored is not None and stored.embedding is None


async def test_ingest_stores_float32_embeddings(store: GraphStore, tenant: Scope) -> None:
    memory = Memory(store, HashingEmbeddings())
    turns = [{"turn_id": f"t{i}", "session_id": "s1", "speaker": "Ann", "text": f"turn number {i}"} for i in range(3)]
    nodes = await memory.ingest(tenant, turns)
    for node in nodes:
        stored = await _stored(store, tenant, node.id)
        assert stored == _as_float32(np.asarray(node.embedding)) and _is_float32(stored)


async def test_a_draft_skill_from_consolidation_stores_a_float32_embedding(store: GraphStore, tenant: Scope) -> None:
    """Procedural promotion writes the events' unit mean embedding (float64 in Python) once, as
    float32, like every other memory write."""
    rng = random.Random(3)
    action = unit_vector(rng)
    at = NOW - 2 * DAY
    await store.add_nodes(
        tenant, [event(f"restart the web server #{i}", at=at + i, embedding=near(action, rng, 0.3)) for i in range(3)]
    )
    report = await SleepConsolidator(store.conn, ConsolidationConfig(), clock=lambda: NOW).run(
        tenant, only=[Phase.PROCEDURAL_PROMOTION]
    )
    assert report.phase(Phase.PROCEDURAL_PROMOTION).counts["drafts"] == 1  # type: ignore[union-attr]
    [draft] = await store.query_subtree(tenant, {"layers": [Layer.PROCEDURAL]}, limit=None, with_embedding=True)
    assert draft.embedding is not None and _is_float32(draft.embedding)
    assert float(np.dot(draft.embedding, action)) > 0.9


async def test_cosines_over_float32_storage_stay_within_float32_rounding(store: GraphStore, tenant: Scope) -> None:
    """What recall's exact scan computes (``vector.similarity.cosine`` over the stored
    embedding) is within 2.5e-7 of what it computed over the caller's float64 vector, and ranks
    the memories as the float64 brute force does."""
    vectors = _vectors(200, 3)
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
    assert len(rows) == 200
    assert max(abs(r["stored"] - r["given"]) for r in rows) <= 2.5e-7
    expected = [nodes[i].id for i in np.argsort(-(vectors @ query))[:10]]
    assert [r["id"] for r in sorted(rows, key=lambda r: -r["stored"])[:10]] == expected
