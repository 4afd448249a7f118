"""Sleep consolidation: every phase as a Cypher batch job.

``SleepConsolidator(conn, config).run(scope)`` consolidates a scope and its subtree under a
per-scope lease and returns a :class:`ConsolidationReport` (also stored as a
``(:ConsolidationRun)-[:RAN_IN]->(:Scope)`` node). Retractions are soft and explained; a
retracted memory can be restored within the grace period, leaving an audit entry.
"""

from hippograph.consolidation.config import ConsolidationConfig
from hippograph.consolidation.consolidator import SleepConsolidator
from hippograph.consolidation.history import list_runs
from hippograph.consolidation.hooks import MergeJudge, Summarizer
from hippograph.consolidation.model_hooks import ConsolidationModelError, ModelConsolidation, claude_consolidation
from hippograph.consolidation.phases import QUICK_NAP_ORDER, RUN_ORDER
from hippograph.consolidation.queries import ConsolidationQuery
from hippograph.consolidation.report import (
    ConsolidationReport,
    EntryPoint,
    Phase,
    PhaseReport,
    PhaseStatus,
    RunStatus,
)
from hippograph.consolidation.schedule import NapSchedule

__all__ = [
    "QUICK_NAP_ORDER",
    "RUN_ORDER",
    "ConsolidationConfig",
    "ConsolidationModelError",
    "ConsolidationQuery",
    "ConsolidationReport",
    "EntryPoint",
    "MergeJudge",
    "ModelConsolidation",
    "NapSchedule",
    "Phase",
    "PhaseReport",
    "PhaseStatus",
    "RunStatus",
    "SleepConsolidator",
    "Summarizer",
    "claude_consolidation",
    "list_runs",
]
