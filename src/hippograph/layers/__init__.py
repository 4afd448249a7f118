"""The five memory layers and :class:`Memory`, the one object that fronts them.

``Memory`` is the name to use (``hippograph.Memory``); ``MemoryOrchestrator`` is the same class
under its earlier name and keeps working."""

from hippograph.layers.base import MemoryLayer, MemoryServices
from hippograph.layers.capability import (
    Consolidation,
    Exchange,
    Extractor,
    MemoryCapability,
    Recollection,
    RecordPolicy,
    RecordReport,
)
from hippograph.layers.episodic import ActionCall, EpisodicMemory
from hippograph.layers.ingest import ConversationTurn
from hippograph.layers.metacognition import GateMode, MetacognitiveGate
from hippograph.layers.orchestrator import CommitReport, Memory, MemoryOrchestrator
from hippograph.layers.procedural import ProceduralMemory
from hippograph.layers.prospective import ProspectiveMemory
from hippograph.layers.semantic import SemanticMemory
from hippograph.layers.working import WorkingMemory

__all__ = [
    "ActionCall",
    "CommitReport",
    "Consolidation",
    "ConversationTurn",
    "EpisodicMemory",
    "Exchange",
    "Extractor",
    "GateMode",
    "Memory",
    "MemoryCapability",
    "MemoryLayer",
    "MemoryOrchestrator",
    "MemoryServices",
    "MetacognitiveGate",
    "ProceduralMemory",
    "ProspectiveMemory",
    "Recollection",
    "RecordPolicy",
    "RecordReport",
    "SemanticMemory",
    "WorkingMemory",
]
