"""The four signals of reference §4 and the multipliers hippograph adds (scope distance,
time match, currency), as pure functions."""

from __future__ import annotations

import math

from hippograph.models import MemoryNode
from hippograph.retrieval.config import RecallConfig

DAY = 86_400.0
SUPERSEDED_FACTOR = 0.5
OUT_OF_WINDOW_FACTOR = 0.6


def recency(node: MemoryNode, now: float, half_life_days: float) -> float:
    """2^(−age / half-life); age from when it happened (episodes) or was last updated."""
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


def time_match(node: MemoryNode, window: tuple[float, float] | None) -> float:
    """When the query names a time, memories of that time keep full score, others less."""
    if window is None:
        return 1.0
    when = node.occurred_at if node.occurred_at is not None else node.created_at
    return 1.0 if window[0] <= when < window[1] else OUT_OF_WINDOW_FACTOR


def combine(config: RecallConfig, relevance: float, rec: float, freq: float, prox: float) -> float:
    """The four signals, weighted as the reference weighs them, with relevance as the gate:
    ``relevance × (w_rel + (1 − w_rel) × m)`` where ``m`` is the weighted mean of recency,
    frequency and proximity. With the reference weights a memory keeps 40–100 % of its
    relevance: among equally relevant memories the recent, often used, close ones win, but a
    recent, popular memory that does not answer the query cannot outrank one that does by
    more than 2.5×. (The reference adds the four; then an irrelevant but fresh memory beats a
    relevant old one.)"""
    w = config.weights
    others = w.recency + w.frequency + w.proximity
    if others <= 0:
        return relevance
    mix = (w.recency * rec + w.frequency * freq + w.proximity * prox) / others
    return relevance * (w.relevance + (1.0 - w.relevance) * mix)
