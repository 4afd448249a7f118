"""Memory's private collaborators, named: the one way tests reach behind its front (to set up a
graph the public verbs cannot, or to look at what a call left behind). Library code, docs and
notebooks never do (tests/unit/test_memory_front.py)."""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.layers.base import MemoryServices
from hippograph.layers.episodic import EpisodicMemory
from hippograph.layers.metacognition import MetacognitiveGate
from hippograph.layers.pending import PendingWrites
from hippograph.layers.procedural import ProceduralMemory
from hippograph.layers.prospective import ProspectiveMemory
from hippograph.layers.semantic import SemanticMemory
from hippograph.layers.working import WorkingMemory
from hippograph.memory.commit import OpWriter
from hippograph.memory.memory import Memory
from hippograph.retrieval.engine import RecallEngine
from hippograph.store.graph_store import GraphStore


@dataclass(frozen=True)
class MemoryInternals:
    """What :class:`Memory` builds and keeps private."""

    store: GraphStore
    engine: RecallEngine
    services: MemoryServices
    pending: PendingWrites
    working: WorkingMemory
    episodic: EpisodicMemory
    semantic: SemanticMemory
    procedural: ProceduralMemory
    prospective: ProspectiveMemory
    gate: MetacognitiveGate
    writer: OpWriter


def internals(memory: Memory) -> MemoryInternals:
    """``memory``'s collaborators (the same objects it uses, not copies)."""
    return MemoryInternals(
        store=memory._store,
        engine=memory._engine,
        services=memory._services,
        pending=memory._pending,
        working=memory._working,
        episodic=memory._episodic,
        semantic=memory._semantic,
        procedural=memory._procedural,
        prospective=memory._prospective,
        gate=memory._gate,
        writer=memory._writer,
    )
