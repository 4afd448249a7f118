"""Issue 9 #6: ``max_hops`` means what the reference says — 0 is first-degree neighbours
only, N is a breadth-first walk of N hops (it used to walk N + 1), so a config ported from
the reference does not silently change meaning."""

from __future__ import annotations

from itertools import pairwise

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.scope import Scope
from tests.support.memory_internals import internals

QUERY = "harbor lantern"
CHAIN = 6


async def _chain(memory: Memory, scope: Scope, hashing: HashingEmbeddings) -> list[str]:
    """A seed that matches the query, then a chain of memories only activation can reach
    (no query word, no embedding, no shared cue), linked by NEXT."""
    seed = MemoryNode(layer=Layer.SEMANTIC, label=QUERY, content=QUERY, embedding=await hashing.embed(QUERY))
    links = [MemoryNode(layer=Layer.SEMANTIC, label=f"chain link {i}", content=f"plain {i}") for i in range(CHAIN)]
    await internals(memory).store.add_nodes(scope, [seed, *links])
    ids = [seed.id, *(n.id for n in links)]
    await internals(memory).store.upsert_edges(
        scope, [MemoryEdge(source=a, target=b, relationship=Relationship.NEXT) for a, b in pairwise(ids)]
    )
    return ids


@pytest.mark.parametrize(
    ("max_hops", "reach"),
    [
        (0, 1),  # first-degree neighbours only
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
    ],
)
async def test_max_hops_walks_as_many_hops_as_the_reference_says(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings, max_hops: int, reach: int
) -> None:
    ids = await _chain(memory, tenant, hashing)
    config = RecallConfig(
        track_access=False, activation=ActivationConfig(max_hops=max_hops, threshold=0.001, cue_decay=0.0)
    )
    result = await internals(memory).engine.recall(tenant, QUERY, top_k=50, config=config)
    reached = {a.id: a.hop for a in result.activation.activated}
    assert reached == {ids[h]: h for h in range(1, reach + 1)}
