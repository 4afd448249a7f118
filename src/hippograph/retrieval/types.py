"""What recall returns: items with their explanation, and the activation log."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from hippograph.models import MemoryNode


class Channel(StrEnum):
    """Which retrieval channel found a memory."""

    VECTOR = "vector"
    FULLTEXT = "fulltext"
    ACTIVATION = "activation"
    RECENT = "recent"


class ScoreParts(BaseModel):
    """How a memory's score came about.

    Evidence (in standard deviations above the typical candidate): ``z_vector`` and
    ``z_fulltext`` from the channels, ``person`` for being said by the person the query
    names, ``topic`` for matching what the query asks of that person; activation that
    reached it over memory edges (``edges``), from its session (``session``, with the session
    prior when it is on) and through
    shared keywords or names (``cues``). ``relevance`` is all of it,
    scaled so the best memory of the recall has 1. The final score is the four-signal sum of
    relevance, recency, frequency and proximity, times the multipliers."""

    relevance: float = 0.0
    cosine: float | None = None
    bm25: float | None = None
    z_vector: float = 0.0
    z_fulltext: float = 0.0
    person: float = 0.0
    topic: float = 0.0
    """Person-centred evidence (in standard deviations): how well a memory of the person the
    query names matches the rest of the query (:mod:`~hippograph.retrieval.person_topic`)."""
    edges: float = 0.0
    session: float = 0.0
    cues: float = 0.0
    recency: float = 0.0
    recency_counted: bool = True
    """False when recency did not weigh in this recall (the query did not ask about the
    recent, ``RecallConfig.recency_when_asked``): ``recency`` is shown, its weight went to relevance."""
    timeless: bool = False
    """True when ``recency`` is 1 because the memory is a current kept fact
    (``RecallConfig.current_facts_timeless``)."""
    frequency: float = 0.0
    proximity: float = 0.0
    scope_weight: float = 1.0
    time_match: float = 1.0
    currency: float = 1.0
    """1.0 for a current fact; below 1 for a superseded or expired one."""
    answer: float = 1.0
    """Below 1 for a conversation turn that asks (``RecallConfig.question_turn_factor``): what it
    asks is weak evidence for an answer."""
    importance: float = 1.0
    """(importance / 5) ** ``RecallConfig.importance_weight``: 1 for a fact of default importance,
    0.6 for a conversation turn."""
    key: str | None = None
    """The key (an index entry enrichment wrote for this memory) through which a channel found
    it, when that key scored higher than the memory's own text; None otherwise."""


class PathStep(BaseModel):
    node_id: str
    relationship: str | None = None
    """Type of the relationship that led to this node (None for the seed)."""


class RecallItem(BaseModel):
    """One recalled memory and why it was recalled."""

    node: MemoryNode
    score: float
    parts: ScoreParts
    channels: dict[Channel, int] = Field(default_factory=dict)
    """Channel → 1-based rank of this memory in that channel."""
    path: list[PathStep] = Field(default_factory=list)
    """For activated memories: seed → … → this memory."""
    scope_distance: int = 0
    below: list[str] = Field(default_factory=list)
    """For a memory drawn from others (an agent's answer from memory): the ids of its sources
    this recall found, which it is ranked below. For a superseded fact: the current version
    it is ranked below."""
    above: list[str] = Field(default_factory=list)
    """For a current fact: the ids of the conversation turns it restates that this recall
    found, which it is ranked above."""

    def explain(self) -> str:
        found = ", ".join(f"{c.value} #{r}" for c, r in sorted(self.channels.items()))
        route = " → ".join((f"-[{s.relationship}]-> " if s.relationship else "") + s.node_id[:8] for s in self.path)
        p = self.parts
        return (
            f"{self.score:.3f} = rel {p.relevance:.2f}, rec {p.recency:.2f}"
            + (" (a current fact)" if p.timeless else "")
            + ("" if p.recency_counted else " (not weighed in this recall)")
            + f", freq {p.frequency:.2f}, "
            f"prox {p.proximity:.2f} (z vec {p.z_vector:+.2f}, z text {p.z_fulltext:+.2f}, person {p.person:.2f}, "
            + (f"topic {p.topic:+.2f}, " if p.topic else "")
            + f"edges {p.edges:.2f}, session {p.session:.2f}, cues {p.cues:.2f}) × scope {p.scope_weight:.2f}"
            f" × time {p.time_match:.2f} × current {p.currency:.2f}"
            + (f" × answer {p.answer:.2f} (it asks)" if p.answer != 1 else "")
            + (f" × importance {p.importance:.2f}" if p.importance != 1 else "")
            + f"; found by {found}"
            + (f"; through key {p.key!r}" if p.key else "")
            + (f"; path {route}" if route else "")
            + (f"; below {self._below_what()} {', '.join(s[:8] for s in self.below)}" if self.below else "")
            + (f"; above the turns it restates {', '.join(s[:8] for s in self.above)}" if self.above else "")
        )

    def _below_what(self) -> str:
        return "the current version" if self.node.superseded_by else "its sources"


class ActivatedNode(BaseModel):
    id: str
    activation: float
    hop: int
    path: list[PathStep]


class PendingConnection(BaseModel):
    source: str
    target: str
    score: float
    hops: int


class ActivationLog(BaseModel):
    """Spreading activation's account of itself: the seeds it started from,
    every memory it reached with the path that reached it, and the inferred links it leaves
    for consolidation."""

    seeds: list[str] = Field(default_factory=list)
    activated: list[ActivatedNode] = Field(default_factory=list)
    pending: list[PendingConnection] = Field(default_factory=list)
    capped: bool = False

    @property
    def inference_paths(self) -> list[list[PathStep]]:
        return [a.path for a in self.activated]


class RecallTimings(BaseModel):
    embed_ms: float = 0.0
    candidates_ms: float = 0.0
    activation_ms: float = 0.0
    scoring_ms: float = 0.0
    total_ms: float = 0.0


class Degradation(BaseModel):
    """A part of recall that failed and was left out; the rest of the recall stands."""

    part: str
    """``fulltext``, ``vector``, ``keys``, ``people``, ``population``, ``activation`` or ``layer:<name>``."""
    error_type: str
    message: str

    @classmethod
    def of(cls, part: str, exc: BaseException) -> Degradation:
        return cls(part=part, error_type=type(exc).__name__, message=str(exc)[:300])


class RecallResult(BaseModel):
    """One recall: the items found, how activation reached them, timings and what degraded.
    :mod:`hippograph.analysis` views it as a graph (``to_networkx``) or a Browser query
    (``recall_query``)."""

    query: str
    scope_key: str
    items: list[RecallItem]
    activation: ActivationLog
    timings: RecallTimings
    degraded: list[Degradation] = Field(default_factory=list)
    """Parts that failed (a channel, activation, a layer's rendering): the items come from the
    parts that worked. Empty when nothing failed."""

    @property
    def ids(self) -> list[str]:
        return [i.node.id for i in self.items]
