"""The five memory layers (working, episodic, semantic, procedural, prospective), the
metacognitive gate and the helpers they share. The facade that fronts them, ``Memory``, lives
in :mod:`hippograph.memory`; its names are still found here under their earlier paths, with a
``DeprecationWarning``."""

from __future__ import annotations

from hippograph._lazy import lazy_exports
from hippograph.layers.base import MemoryLayer, MemoryServices
from hippograph.layers.episodic import ActionCall, EpisodicMemory
from hippograph.layers.metacognition import GateMode, MetacognitiveGate
from hippograph.layers.procedural import ProceduralMemory
from hippograph.layers.prospective import ProspectiveMemory
from hippograph.layers.semantic import SemanticMemory
from hippograph.layers.working import WorkingMemory

__all__ = [
    "ActionCall",
    "EpisodicMemory",
    "GateMode",
    "MemoryLayer",
    "MemoryServices",
    "MetacognitiveGate",
    "ProceduralMemory",
    "ProspectiveMemory",
    "SemanticMemory",
    "WorkingMemory",
]

MOVED: dict[str, str] = {
    "Memory": "hippograph.memory:Memory",
    "MemoryOrchestrator": "hippograph.memory:Memory",
    "MemoryCapability": "hippograph.memory:MemoryCapability",
    "CommitReport": "hippograph.memory:CommitReport",
    "Consolidation": "hippograph.memory:Consolidation",
    "ConversationTurn": "hippograph.memory:ConversationTurn",
    "Exchange": "hippograph.memory:Exchange",
    "Extractor": "hippograph.memory:Extractor",
    "Recollection": "hippograph.memory:Recollection",
    "RecordPolicy": "hippograph.memory:RecordPolicy",
    "RecordReport": "hippograph.memory:RecordReport",
}
"""Names that moved out of this package: {earlier name: its new ``module:attribute``}."""


__getattr__, _ = lazy_exports(
    __name__, {}, moved={old: (target.split(":")[0], target.split(":")[1]) for old, target in MOVED.items()}
)
