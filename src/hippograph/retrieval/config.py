"""Recall settings and their defaults."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ScoreWeights(BaseModel):
    """Weights of the four signals; they must sum to 1 (default: 0.4 / 0.2 / 0.2 / 0.2).
    ``relevance`` is the fused hybrid relevance (vector + fulltext), not cosine
    alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    relevance: float = Field(default=0.4, ge=0)
    recency: float = Field(default=0.2, ge=0)
    frequency: float = Field(default=0.2, ge=0)
    proximity: float = Field(default=0.2, ge=0)

    @model_validator(mode="after")
    def _sum_to_one(self) -> ScoreWeights:
        total = self.relevance + self.recency + self.frequency + self.proximity
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"score weights must sum to 1, got {total:.3f}")
        return self


class ActivationConfig(BaseModel):
    """Spreading activation: per-hop decay, fan-out and total caps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_hops: int = Field(default=0, ge=0, le=4)
    """0 = first-degree neighbours only; N = breadth-first to N hops
    (so 0 and 1 walk the same)."""
    base_decay: float = Field(default=0.5, gt=0, le=1)
    """Activation passed per hop (default: 0.5, 0.25, …)."""
    fan_out: int = Field(default=5, ge=1, le=50)
    max_nodes: int = Field(default=50, ge=0, le=1000)
    """Most memories activation may add beyond the channels' candidates."""
    threshold: float = Field(default=0.01, ge=0, le=1)
    session_decay: float = Field(default=0.25, ge=0, le=1)
    """Two hops (memory → session → memory) at base_decay each."""
    session_seeds: int = Field(default=10, ge=0, le=100)
    cue_decay: float = Field(default=0.25, ge=0, le=1)
    """Two hops (memory → keyword/name cue → memory), scaled by the cue's rarity."""
    cue_seeds: int = Field(default=10, ge=0, le=100)
    cue_rarity: Literal["log", "inverse"] = "log"
    """How a cue's rarity scales what it passes: ``"log"`` = ln(1 + N/degree) / ln(1 + N) over
    the N memories the scope sees; ``"inverse"`` = 1 / degree, HippoRAG 2's seed weighting (a
    cue of degree 1 would weigh 1), far steeper: a cue shared by 10 memories passes a tenth."""
    max_cue_degree: int = Field(default=2000, ge=2)
    cue_budget: int = Field(default=500, ge=1)
    """Cue spreading walks the strongest cues first (best offer: seed × decay × rarity) and
    stops before a cue once the cues walked so far have this many members in all (the first is
    always walked): a handful of seeds that share many common names would otherwise reach
    thousands of memories that rank nowhere (recall keeps at most 1,000 associations, the strongest).
    Walking a member is most of cue spreading's cost; on LoCoMo dev 500 scores as 2,000 did
    (overall R@10 85.9 against 85.3, multi-hop 46.7 against 46.2) in a quarter of the walk."""
    record_pending: bool = True
    """Leave inferred links (seed → memory reached two or more hops away) for consolidation."""
    max_pending: int = Field(default=20, ge=0)


class RecallConfig(BaseModel):
    """Everything recall can be told; immutable, shareable across calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    top_k: int = Field(default=5, ge=1, le=500)
    weights: ScoreWeights = ScoreWeights()
    recency_half_life_days: float = Field(default=7.0, gt=0)
    recency_when_asked: bool = True
    """Recency weighs only when the query asks about the recent ("recently", "latest", "now",
    "last week", …: :func:`~hippograph.retrieval.timeparse.asks_about_recent`); otherwise its
    weight goes to relevance. Recent turns are the session's working memory already; recall
    is asked about the whole history, where a 7-day half-life buries what is months old.
    False weighs recency in every recall."""
    frequency_saturation: int = Field(default=100, ge=1)
    scope_weighting: bool = True
    scope_floor: float = Field(default=0.0, ge=0, le=1)
    scope_half_life: float = Field(default=1.0, gt=0)
    hydration_threshold: float = Field(default=0.0, ge=0, le=10)
    """Minimum importance of a recalled memory."""
    min_relevance: float = Field(default=0.2, ge=0, le=1)
    """Minimum cosine similarity of a direct hit (``hydration_min_relevance``)."""
    episodic_raw_cap: int = Field(default=10, ge=0)
    candidates_per_channel: int = Field(default=100, ge=1, le=2000)
    vector_weight: float = Field(default=1.0, ge=0)
    fulltext_weight: float = Field(default=1.0, ge=0)
    """Channels are z-scored over the candidate pool and added with these weights: each then
    reads "standard deviations above the typical candidate", so no scale constant is needed."""
    person_bonus: float = Field(default=1.0, ge=0)
    """Added (in standard deviations) to memories said by the one person the query names."""
    topic_weight: float = Field(default=0.0, ge=0)
    """Person-centred recall (:mod:`~hippograph.retrieval.person_topic`), off by default: when
    the query names one person, added to that person's candidates × z (over the pool) of their
    cosine to the rest of the query (without the name). Measured at 1.0 (one standard deviation,
    as the person bonus): on LoCoMo dev it lifts multi-hop and open-domain recall but loses
    overall R@10 on one of the two conversations, so leave-one-conversation-out does not pick it."""
    topic_head_weight: float = Field(default=0.0, ge=0)
    """The same for a list question's noun phrase ("What activities does …" → "activities"),
    positive side only; measured at 0.5."""
    session_prior: float = Field(default=0.0, ge=0)
    """Session evidence as a prior, off by default: each session scores its best candidate's
    evidence (activation units, [0, 1]), and every candidate of that session gains
    ``session_prior`` × that score. Unlike session spreading it reaches every session a channel
    found, and only candidates."""
    session_diversity: float = Field(default=0.0, ge=0, lt=1)
    """Diversity across sessions in the final order, off by default
    (:mod:`~hippograph.retrieval.diversity`): the ranking is rebuilt greedily, each item's score
    taken × (1 − this) per item of its session already placed. The scores stay as they were."""
    feedback_weight: float = Field(default=0.0, ge=0, le=4)
    """Pseudo-relevance feedback in the vector channel, off by default: the query's vector plus
    this × the mean of the ``feedback_seeds`` best vector hits' vectors searches again (an exact
    scan of the visible memories), and the channel's hits and cosines are those of the expanded
    query. Finds what the first hits resemble but the question does not."""
    feedback_seeds: int = Field(default=3, ge=1, le=20)
    """How many of the vector channel's first hits feed the expanded query."""
    time_aware: bool = True
    fact_evidence: bool = True
    """A current kept fact also ranks on its own evidence: its relevance is the larger of its
    activation against the best candidate's and its channel evidence against the best
    candidate's. A conversation turn gathers activation from its neighbours and its session; a
    fact stands alone, so without this, chatter that merely names a person outranks the fact
    about them that the query asks for. False ranks facts on activation alone."""
    question_turn_factor: float = Field(default=0.5, ge=0, le=1)
    """What a conversation turn asks is weak evidence for an answer: a turn of one speaker is
    multiplied by 1 − (1 − this) × the share of its text in sentences ending with "?" (this for
    a turn that only asks). 1 turns the rule off."""
    facts_above_turns: bool = True
    """A current fact that a channel found ranks just above the conversation turns it restates
    (turns that share at least two content words with it) that the same recall found, when both
    match (``fact_turn_ratio``): the fact is what was kept of them, and kept current. False
    leaves the scores as they are."""
    fact_turn_ratio: float = Field(default=0.5, ge=0, le=1)
    """Both match when the fact's own score is at least this share of the turn's."""
    importance_weight: float = Field(default=1.0, ge=0, le=4)
    """The score is multiplied by (importance / 5) ** importance_weight: a memory kept as more
    important ranks above an equally relevant one kept as less. 5 is a fact's default, so a
    fact stays as it scores and a conversation turn (3) takes 0.6 of its score: among turns
    alone nothing moves, but a kept fact outranks chatter that matches as well. 0 turns it off."""
    current_facts_timeless: bool = True
    """A current kept fact is not made old by its age: when recency weighs (the query asks about
    the recent), its recency is 1, as for what was said last. Being current is what a question
    about "now" asks of a fact, and currency already sets a superseded or expired version apart;
    an age would let this week's small talk outrank the fact that still holds. False dates a
    fact from when it was last written or confirmed."""
    superseded_below_current: bool = True
    """A superseded version ranks just below the current version of its fact when both are
    found, whatever else lifted it."""
    activation: ActivationConfig = ActivationConfig()
    token_budget: int = Field(default=2000, ge=50)
    track_access: bool = True
    """Bump access_count / spreading_access_count of what recall returns (off the hot path)."""
