"""The ports of a scope's memory capability: what it is given (an :class:`Exchange`), what
it calls out to (an :class:`Extractor`, a :class:`Consolidation`) and what it uses of the
memory that built it (:class:`MemoryPort`). The capability knows agents, models and
consolidation only through these."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from hippograph.layers.episodic import ActionCall
from hippograph.layers.metacognition import GateMode
from hippograph.layers.working import DAY
from hippograph.memory.commit import CommitReport
from hippograph.models import Layer, MemoryEdge, MemoryNode
from hippograph.ops import MemoryOp
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.context import MemoryContext
from hippograph.retrieval.types import RecallResult
from hippograph.scope import Scope
from hippograph.scrub import Scrubber

if TYPE_CHECKING:
    from hippograph.layers.turn_reads import TurnReads

__all__ = ["Consolidation", "Exchange", "Extractor", "MemoryPort"]


@dataclass(frozen=True)
class Exchange:
    """One finished exchange of a conversation: what the user said and what the agent
    answered (after its final model round), with the model's thinking if any."""

    user: str
    reply: str
    thinking: str = ""
    session_id: str | None = None


@runtime_checkable
class Extractor(Protocol):
    """Finds memory ops worth keeping in a finished exchange (usually with a separate,
    smaller extraction model). Raising is allowed: the failure is reported, the exchange
    is still recorded."""

    async def extract(self, exchange: Exchange) -> Sequence[MemoryOp]:
        """The ops to apply for ``exchange`` (empty when nothing is worth keeping)."""
        ...


@runtime_checkable
class Consolidation(Protocol):
    """The consolidation cadence: counts turns per scope and runs the quick nap it makes
    due (``SleepConsolidator`` is one)."""

    def note_turn(self, scope: Scope) -> bool:
        """Count one turn of ``scope``; True when a quick nap is due now."""
        ...

    async def quick_nap(self, scope: Scope) -> object:
        """Run a quick nap of ``scope``; returns its report."""
        ...


class MemoryPort(Protocol):
    """What a capability uses of its memory (:class:`hippograph.memory.Memory` is one): the
    capability is built by the memory and knows it only through this port."""

    @property
    def recall_config(self) -> RecallConfig: ...

    @property
    def scrubber(self) -> Scrubber: ...

    async def get_nodes(self, scope: Scope, ids: Sequence[str]) -> list[MemoryNode]: ...

    async def link(self, scope: Scope, edges: Sequence[MemoryEdge]) -> list[MemoryEdge]: ...

    async def store_turn(
        self,
        scope: Scope,
        user: str,
        agent: str,
        *,
        session_id: str | None = None,
        mentions: Sequence[str] = (),
        occurred_at: float | None = None,
        drawn_from: Sequence[str] = (),
    ) -> MemoryNode: ...

    async def store_actions(
        self, scope: Scope, request: str, actions: Sequence[ActionCall], *, turn_event_id: str | None = None
    ) -> MemoryNode | None: ...

    async def push_working(
        self,
        scope: Scope,
        text: str,
        *,
        kind: Literal["turn", "thinking"] = "turn",
        session_id: str | None = None,
        ttl: float = DAY,
        drawn_from: Sequence[str] = (),
    ) -> MemoryNode: ...

    def track(self, scope: Scope, task: asyncio.Task[object]) -> None: ...

    async def drain(self) -> None: ...

    async def context(
        self,
        scope: Scope,
        query: str,
        *,
        budget: int | None = None,
        layers: Sequence[Layer] | None = None,
        top_k: int | None = None,
        include_working: bool = True,
        session_id: str | None = None,
        turn_reads: TurnReads | None = None,
        recent_turns: int | None = None,
        config: RecallConfig | None = None,
    ) -> tuple[RecallResult, MemoryContext]: ...

    async def commit(
        self,
        scope: Scope,
        ops: Sequence[MemoryOp],
        *,
        auto_approve_skills: bool = False,
        source_event_id: str | None = None,
        skill_gate: GateMode | str = GateMode.OFF,
    ) -> CommitReport: ...

    async def forget(self, scope: Scope) -> int: ...
