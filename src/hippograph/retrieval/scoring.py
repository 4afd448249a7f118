"""The four signals and the multipliers hippograph adds (scope distance,
time match, currency, answer, importance), the evidence each candidate seeds activation with, and the final
score — all pure functions; the recall engine only gathers their inputs."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.config import RecallConfig, ScoreWeights
from hippograph.retrieval.timeparse import asks_about_recent
from hippograph.retrieval.types import Channel, ScoreParts
from hippograph.scope import scope_weight

DAY = 86_400.0
SUPERSEDED_FACTOR = 0.5
OUT_OF_WINDOW_FACTOR = 0.6
DEFAULT_IMPORTANCE = 5.0
"""A fact's importance unless told otherwise; the importance multiplier is 1 there."""


def recency(node: MemoryNode, now: float, half_life_days: float) -> float:
    """2^(−age / half-life); age from when it happened (episodes) or was last written or
    confirmed (facts: remembering the same content again confirms it, see
    :meth:`~hippograph.layers.semantic.SemanticMemory.store_fact`)."""
    when = node.occurred_at if node.occurred_at is not None else node.updated_at
    age = max(0.0, now - when)
    return float(2.0 ** (-age / (half_life_days * DAY)))


def frequency(node: MemoryNode, saturation: int) -> float:
    """log(1 + uses) / log(1 + saturation), capped at 1; spreading visits count half."""
    uses = node.access_count + 0.5 * node.spreading_access_count
    return min(1.0, math.log1p(uses) / math.log1p(saturation))


def proximity(hops: int | None) -> float:
    """1 / (1 + shortest path length to a seed hit); 0 when unreached."""
    return 0.0 if hops is None else 1.0 / (1.0 + hops)


def currency(node: MemoryNode, now: float) -> float:
    """Prefer current facts: superseded or past valid_until → SUPERSEDED_FACTOR."""
    if node.superseded_by or (node.valid_until is not None and node.valid_until <= now):
        return SUPERSEDED_FACTOR
    return 1.0


def is_current_fact(node: MemoryNode, now: float) -> bool:
    """A semantic memory that is neither superseded nor past its ``valid_until``."""
    return node.layer is Layer.SEMANTIC and currency(node, now) == 1.0


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def question_share(node: MemoryNode) -> float:
    """The share of a one-speaker conversation turn's text (an ingested turn) in sentences that
    end with "?"; 0 for anything else. An exchange the agent recorded holds both speakers' words
    and counts as none."""
    props = node.properties
    if node.layer is not Layer.EPISODIC or props.get("kind") != "turn" or not isinstance(props.get("speaker"), str):
        return 0.0
    sentences = [p for p in _SENTENCE_END.split(node.content.strip()) if p]
    total = sum(len(p) for p in sentences)
    return sum(len(p) for p in sentences if p.endswith("?")) / total if total else 0.0


def answer_weight(node: MemoryNode, question_turn_factor: float) -> float:
    """1 − (1 − ``question_turn_factor``) × :func:`question_share`: what a turn asks names what
    the query names ("What kind of dog is Pixel?") without answering it, so a turn that only
    asks weighs ``question_turn_factor`` and one that says something and then asks weighs by
    how much of it says."""
    return 1.0 - (1.0 - question_turn_factor) * question_share(node)


@dataclass(frozen=True)
class Footing:
    """What one recall's relevance is measured against (:func:`footing`, once per recall)."""

    best_total: float
    """The most activation among the memories scored (1 when none has any)."""
    best_evidence: float
    """The most evidence (:func:`fact_evidence` for facts, channel evidence for the rest)."""
    person: str | None
    """The one person the query names, when it names one the scope has heard from."""
    person_evidence: float
    """The person bonus in activation units."""


def footing(
    total: Mapping[str, float],
    base: Mapping[str, float],
    nodes: Mapping[str, MemoryNode],
    evidence: Mapping[str, ScoreParts],
    named: Sequence[str],
    config: RecallConfig,
    now: float,
) -> Footing:
    """The footing of a recall that scores ``nodes``."""
    scale = evidence_scale(evidence, config.vector_weight, config.fulltext_weight)
    on = Footing(
        best_total=max((total.get(i, 0.0) for i in nodes), default=0.0) or 1.0,
        best_evidence=0.0,
        person=named[0] if len(named) == 1 else None,
        person_evidence=config.person_bonus * scale,
    )
    best = max((fact_evidence(n, on, base.get(i, 0.0), now) for i, n in nodes.items()), default=0.0)
    return replace(on, best_evidence=best)


def names_person(node: MemoryNode, person: str) -> bool:
    """Whether the memory's label or text names ``person`` (as a whole word, any case)."""
    return re.search(rf"\b{re.escape(person)}\b", f"{node.label} {node.content}", re.IGNORECASE) is not None


def fact_evidence(node: MemoryNode, on: Footing, evidence: float, now: float) -> float:
    """A current fact's channel evidence plus the person bonus when it names the one person the
    query names (as a turn said by them has it); other memories' channel evidence as it is."""
    if on.person and is_current_fact(node, now) and names_person(node, on.person):
        return evidence + on.person_evidence
    return evidence


def importance_factor(node: MemoryNode, weight: float) -> float:
    """(importance / ``DEFAULT_IMPORTANCE``) ** ``weight``: 1 for a fact of default importance."""
    return float((node.importance / DEFAULT_IMPORTANCE) ** weight)


def relevance(
    node: MemoryNode, config: RecallConfig, on: Footing, *, now: float, total: float, evidence: float
) -> float:
    """A memory's activation against the best one's. A current fact (with ``fact_evidence``)
    takes the larger of that and its evidence against the best (:func:`fact_evidence`). A
    turn gathers activation from the turns around it and from its session, and is said by
    someone; a fact stands alone, and would otherwise lose to turns that merely name the
    person it is about."""
    rel = total / on.best_total
    if not config.fact_evidence or on.best_evidence <= 0 or not is_current_fact(node, now):
        return rel
    return max(rel, fact_evidence(node, on, evidence, now) / on.best_evidence)


def time_match(node: MemoryNode, window: tuple[float, float] | None) -> float:
    """When the query names a time, memories of that time keep full score, others less."""
    if window is None:
        return 1.0
    when = node.occurred_at if node.occurred_at is not None else node.created_at
    return 1.0 if window[0] <= when < window[1] else OUT_OF_WINDOW_FACTOR


def for_query(config: RecallConfig, query: str) -> RecallConfig:
    """The config this query is scored with: when recency weighs only if asked
    (``recency_when_asked``) and the query does not ask about the recent, recency's weight
    goes to relevance — among equally relevant memories, the newer no longer wins by itself."""
    w = config.weights
    if not config.recency_when_asked or w.recency == 0 or asks_about_recent(query):
        return config
    weights = ScoreWeights(relevance=w.relevance + w.recency, recency=0.0, frequency=w.frequency, proximity=w.proximity)
    return config.model_copy(update={"weights": weights})


def combine(config: RecallConfig, relevance: float, rec: float, freq: float, prox: float) -> float:
    """The four signals, weighted, with relevance as the gate:
    ``relevance × (w_rel + (1 − w_rel) × m)`` where ``m`` is the weighted mean of recency,
    frequency and proximity. With the default weights a memory keeps 40–100 % of its
    relevance: among equally relevant memories the recent, often used, close ones win, but a
    recent, popular memory that does not answer the query cannot outrank one that does by
    more than 2.5×. (Adding the four instead would let an irrelevant but fresh memory beat a
    relevant old one.)"""
    w = config.weights
    others = w.recency + w.frequency + w.proximity
    if others <= 0:
        return relevance
    mix = (w.recency * rec + w.frequency * freq + w.proximity * prox) / others
    return relevance * (w.relevance + (1.0 - w.relevance) * mix)


def evidence_activation(
    evidence: Mapping[str, ScoreParts], vector_weight: float, fulltext_weight: float
) -> dict[str, float]:
    """Each candidate's starting activation: its weighted channel evidence (plus the person
    bonus) relative to the weakest candidate, scaled to [0, 1]; all 1 when all are equal."""
    raw = {i: e.z_vector * vector_weight + e.z_fulltext * fulltext_weight + e.person for i, e in evidence.items()}
    floor = min(raw.values(), default=0.0)
    top = max((v - floor for v in raw.values()), default=0.0)
    return {i: (v - floor) / top if top > 1e-9 else 1.0 for i, v in raw.items()}


def evidence_scale(evidence: Mapping[str, ScoreParts], vector_weight: float, fulltext_weight: float) -> float:
    """One standard deviation of evidence in activation units (:func:`evidence_activation`
    divides by the candidates' evidence range); 0 when all candidates are equal."""
    raw = [e.z_vector * vector_weight + e.z_fulltext * fulltext_weight + e.person for e in evidence.values()]
    spread = max(raw, default=0.0) - min(raw, default=0.0)
    return 1.0 / spread if spread > 1e-9 else 0.0


def channels_of(vector_rank: int | None, fulltext_rank: int | None) -> dict[Channel, int]:
    """The channels that found a memory, with its rank in each."""
    channels: dict[Channel, int] = {}
    if vector_rank is not None:
        channels[Channel.VECTOR] = vector_rank
    if fulltext_rank is not None:
        channels[Channel.FULLTEXT] = fulltext_rank
    return channels


def weak_vector_only(
    channels: Mapping[Channel, int], boosted: bool, cosine: float | None, min_relevance: float
) -> bool:
    """A memory only the vector channel found, that nothing activated, below the cosine gate."""
    return set(channels) == {Channel.VECTOR} and not boosted and (cosine is None or cosine < min_relevance)


def signals(
    node: MemoryNode,
    config: RecallConfig,
    *,
    now: float,
    hops: int,
    distance: int,
    window: tuple[float, float] | None,
) -> dict[str, float]:
    """Recency (1 for a current fact with ``current_facts_timeless``), frequency, proximity and
    the five multipliers of one memory (ScoreParts names)."""
    timeless = config.current_facts_timeless and is_current_fact(node, now)
    return {
        "recency": 1.0 if timeless else recency(node, now, config.recency_half_life_days),
        "timeless": timeless,
        "frequency": frequency(node, config.frequency_saturation),
        "proximity": proximity(hops),
        "scope_weight": scope_weight(distance, floor=config.scope_floor, half_life=config.scope_half_life)
        if config.scope_weighting
        else 1.0,
        "time_match": time_match(node, window),
        "currency": currency(node, now),
        "answer": answer_weight(node, config.question_turn_factor),
        "importance": importance_factor(node, config.importance_weight),
    }


def final_score(config: RecallConfig, parts: ScoreParts) -> float:
    """The four signals combined (:func:`combine`) times scope weight, time match, currency,
    answer weight and importance."""
    base = combine(config, parts.relevance, parts.recency, parts.frequency, parts.proximity)
    return base * parts.scope_weight * parts.time_match * parts.currency * parts.answer * parts.importance
