"""The five memory layers (working, episodic, semantic, procedural, prospective), the
metacognitive gate and the helpers they share. The facade that fronts them, ``Memory``, lives
in :mod:`hippograph.memory`; its names are still found here under their earlier paths, with a
``DeprecationWarning``."""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any

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


def __getattr__(name: str) -> Any:
    """An earlier name, from where it lives now, with a ``DeprecationWarning`` naming it."""
    try:
        target = MOVED[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module, attr = target.split(":")
    warnings.warn(f"hippograph.layers.{name} is deprecated: use {module}.{attr}", DeprecationWarning, stacklevel=2)
    return getattr(import_module(module), attr)
