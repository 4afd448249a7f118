"""Recall's off-by-default levers for evidence spread over sessions: pseudo-relevance feedback
in the vector channel, diversity across sessions in the final order."""

from __future__ import annotations

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import ConversationTurn, Memory
from hippograph.models import Layer
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.types import Channel, RecallResult
from hippograph.scope import Scope
from tests.integration.memory.helpers import add, node
from tests.support.memory_internals import internals

QUERY = "harbor lantern"
ONLY_RELEVANCE = {"relevance": 1.0, "recency": 0.0, "frequency": 0.0, "proximity": 0.0}


async def test_feedback_finds_what_the_first_hit_resembles_but_the_query_does_not(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    texts = {"S": "harbor lantern copper falcon", "B": "copper falcon orchard"}
    texts |= {f"F{i}": f"zulu yankee {w}" for i, w in enumerate(["kilo", "lima", "mike", "oscar"])}
    await add(internals(memory).store, tenant, *[node(Layer.SEMANTIC, t, nid=i, embedding=await hashing.embed(t))
                                      for i, t in texts.items()])  # fmt: skip

    async def recalled(weight: float) -> RecallResult:
        cfg = RecallConfig(track_access=False, feedback_weight=weight, feedback_seeds=1,
                           activation=ActivationConfig(max_nodes=0))  # fmt: skip
        return await internals(memory).engine.recall(tenant, QUERY, top_k=10, config=cfg)

    without, with_feedback = await recalled(0.0), await recalled(1.0)
    assert [i.node.id for i in without.items] == ["S"]  # B shares no word with the query
    found = {i.node.id: i for i in with_feedback.items}
    assert next(iter(found)) == "S" and "B" in found and not any(i.startswith("F") for i in found)
    # the cosine to q + S: (h + l)/√2 + (h + l + c + f)/2 against (c + f + o)/√3
    assert Channel.VECTOR in found["B"].channels
    assert found["B"].parts.cosine is not None and 0.25 < found["B"].parts.cosine < 0.4
    assert not with_feedback.degraded


async def test_diversity_lifts_another_sessions_evidence_over_one_sessions_neighbours(
    memory: Memory, tenant: Scope
) -> None:
    texts = {
        "s1": ["the harbor lantern at dusk", "the harbor lantern again", "harbor lantern and sardines"],
        "s2": ["a lantern in the window of the museum"],
        "s3": ["grilled sardines for dinner"],  # the weakest candidate: its evidence is 0
    }
    turns = [ConversationTurn(turn_id=f"{s}:{i}", session_id=s, speaker="Ana", text=t)
             for s, lines in texts.items() for i, t in enumerate(lines)]  # fmt: skip
    await memory.ingest(tenant, turns)

    async def sessions(diversity: float) -> list[str | None]:
        cfg = RecallConfig(track_access=False, min_relevance=0.0, weights=ONLY_RELEVANCE,  # type: ignore[arg-type]
                           session_diversity=diversity, activation=ActivationConfig(max_nodes=0))  # fmt: skip
        result = await internals(memory).engine.recall(tenant, QUERY, top_k=5, config=cfg)
        return [i.node.session_id for i in result.items]

    assert await sessions(0.0) == ["s1", "s1", "s1", "s2", "s3"]
    assert await sessions(0.9) == ["s1", "s2", "s1", "s1", "s3"]
