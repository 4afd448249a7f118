"""Recall: hybrid candidates (vector ║ fulltext, scope-correct), fused, scored by four
signals, spread over the graph, explained item by item, and packed into a token budget.

``Memory.recall(scope, query, config=RecallConfig(...))`` is the way in; the names here are
what it takes and what it returns. The engine (:mod:`hippograph.retrieval.engine`) is
internal orchestration.
"""

from hippograph.retrieval.config import ActivationConfig, RecallConfig, ScoreWeights
from hippograph.retrieval.context import ContextEntry, MemoryContext
from hippograph.retrieval.types import (
    ActivatedNode,
    ActivationLog,
    Channel,
    PathStep,
    PendingConnection,
    RecallItem,
    RecallResult,
    RecallTimings,
    ScoreParts,
)

__all__ = [
    "ActivatedNode",
    "ActivationConfig",
    "ActivationLog",
    "Channel",
    "ContextEntry",
    "MemoryContext",
    "PathStep",
    "PendingConnection",
    "RecallConfig",
    "RecallItem",
    "RecallResult",
    "RecallTimings",
    "ScoreParts",
    "ScoreWeights",
]
