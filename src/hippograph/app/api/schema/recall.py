# mypy: disable-error-code="untyped-decorator"
"""GraphQL types of recall and the prompt's memory context: each item with its score
parts, channels and activation path, written out where a description of their own is kept."""

from __future__ import annotations

import strawberry
from strawberry.experimental import pydantic as from_model

from hippograph.app.api.schema.common import derived
from hippograph.app.api.schema.memories import Layer, Memory
from hippograph.retrieval import types as _recall
from hippograph.retrieval.context import MemoryContext as _MemoryContext
from hippograph.retrieval.types import Channel as _Channel
from hippograph.retrieval.types import RecallItem as _RecallItem
from hippograph.retrieval.types import RecallResult as _RecallResult

Channel = strawberry.enum(_Channel, name="Channel", description="Which retrieval channel found a memory.")


# Written out: Strawberry's pydantic integration takes each field's description from the
# pydantic model, which would drop the two below.
@strawberry.type(description="How a memory's score came about (see the library's ScoreParts).")
class ScoreParts:
    relevance: float
    cosine: float | None
    bm25: float | None
    z_vector: float
    z_fulltext: float
    person: float
    topic: float = strawberry.field(
        description="Person-centred recall's part (0 unless RecallConfig.topic_weight is set"
        " and the query names one person)."
    )
    edges: float
    session: float
    cues: float
    recency: float
    recency_counted: bool = strawberry.field(
        description="False when recency had no weight in this recall"
        " (by default: the query did not ask about the recent)."
    )
    timeless: bool = strawberry.field(
        description="True when recency is 1 because the memory is a current kept fact"
        " (RecallConfig.current_facts_timeless)."
    )
    frequency: float
    proximity: float
    scope_weight: float
    time_match: float
    currency: float = strawberry.field(description="1 for a current fact; below 1 for a superseded or expired one.")
    answer: float = strawberry.field(
        description="Below 1 for a conversation turn that asks (RecallConfig.question_turn_factor)."
    )
    importance: float = strawberry.field(
        description="(importance / 5) ** RecallConfig.importance_weight: 1 for a fact of default importance."
    )
    key: str | None = strawberry.field(
        default=None,
        description="The key (an index entry enrichment wrote for this memory) through which a channel"
        " found it, when it scored higher than the memory's own text.",
    )


@strawberry.type
class ChannelRank:
    channel: Channel  # type: ignore[valid-type]
    rank: int


@from_model.type(_recall.PathStep, all_fields=True)
class PathStep:
    node_id: strawberry.ID


@strawberry.type(description="One recalled memory and why.")
class RecallItem:
    memory: Memory
    score: float
    parts: ScoreParts
    channels: list[ChannelRank]
    path: list[PathStep]
    scope_distance: int
    explanation: str

    @classmethod
    def of(cls, item: _RecallItem) -> RecallItem:
        return cls(
            memory=Memory.of(item.node),
            score=item.score,
            parts=ScoreParts(**item.parts.model_dump()),
            channels=[ChannelRank(channel=c, rank=r) for c, r in sorted(item.channels.items())],
            path=[derived(PathStep, s) for s in item.path],
            scope_distance=item.scope_distance,
            explanation=item.explain(),
        )


@from_model.type(_recall.ActivatedNode, all_fields=True)
class ActivatedNode:
    id: strawberry.ID


@from_model.type(_recall.PendingConnection, all_fields=True)
class PendingConnection:
    source: strawberry.ID
    target: strawberry.ID


@from_model.type(_recall.ActivationLog, all_fields=True, description="Spreading activation's account of itself.")
class ActivationLog:
    seeds: list[strawberry.ID]


@from_model.type(_recall.RecallTimings, all_fields=True, description="Milliseconds per recall stage.")
class RecallTimings:
    pass


@strawberry.type
class RecallResult:
    query: str
    scope_key: str
    items: list[RecallItem]
    activation: ActivationLog
    timings: RecallTimings

    @classmethod
    def of(cls, r: _RecallResult) -> RecallResult:
        return cls(
            query=r.query,
            scope_key=r.scope_key,
            items=[RecallItem.of(i) for i in r.items],
            activation=derived(ActivationLog, r.activation),
            timings=derived(RecallTimings, r.timings),
        )


@strawberry.type(description="A memory that won a place in the prompt.")
class ContextEntry:
    id: strawberry.ID
    layer: Layer  # type: ignore[valid-type]
    text: str
    tokens: int
    explanation: str


@strawberry.type(description="A recalled memory left out to stay within the budget.")
class NearMiss:
    id: strawberry.ID
    score: float | None
    memory: Memory | None


@strawberry.type(description="The prompt's memory block within a token budget, and what it cost.")
class MemoryContext:
    text: str
    tokens: int
    budget: int
    entries: list[ContextEntry]
    dropped: list[NearMiss]
    recall: RecallResult

    @classmethod
    def of(cls, result: _RecallResult, c: _MemoryContext) -> MemoryContext:
        by_id = {i.node.id: i for i in result.items}
        dropped = []
        for d in c.dropped:
            item = by_id.get(d)
            dropped.append(
                NearMiss(
                    id=strawberry.ID(d),
                    score=item.score if item else None,
                    memory=Memory.of(item.node) if item else None,
                )
            )
        return cls(
            text=c.text,
            tokens=c.tokens,
            budget=c.budget,
            entries=[
                ContextEntry(
                    id=strawberry.ID(e.id), layer=e.layer, text=e.text, tokens=e.tokens, explanation=e.explanation
                )
                for e in c.entries
            ],
            dropped=dropped,
            recall=RecallResult.of(result),
        )
