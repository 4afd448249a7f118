"""What a scope's memory capability returns: the block :meth:`MemoryCapability.recall` found
(:class:`Recollection`) and what :meth:`MemoryCapability.record` wrote (:class:`RecordReport`,
with its skipped ops and failed steps)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from hippograph.memory.commit import CommitReport
from hippograph.ops import MemoryOp
from hippograph.retrieval.context import MemoryContext
from hippograph.retrieval.types import RecallResult

__all__ = ["Recollection", "RecordFailure", "RecordReport", "SkippedOp"]


@dataclass(frozen=True)
class Recollection:
    """What :meth:`MemoryCapability.recall` found for a turn.

    Attributes:
        text: The memory block, within the byte budget (empty when nothing was found).
        bytes: ``len(text.encode("utf-8"))``.
        ids: The memories in ``text``, in order.
        dropped: Memories recalled but left out to stay within the budgets.
        result: The recall with its explanations (channels, score parts, activation).
        context: The token-budgeted context the text was cut from.
    """

    text: str
    bytes: int
    ids: list[str]
    dropped: list[str]
    result: RecallResult
    context: MemoryContext


@dataclass(frozen=True)
class RecordFailure:
    """A step of :meth:`MemoryCapability.record` that failed (the others still ran)."""

    step: str
    error_type: str
    message: str

    @classmethod
    def of(cls, step: str, exc: BaseException) -> RecordFailure:
        return cls(step, type(exc).__name__, str(exc)[:500])


@dataclass(frozen=True)
class SkippedOp:
    """An op that was not applied, and why."""

    index: int
    reason: str


@dataclass
class RecordReport:
    """What :meth:`MemoryCapability.record` wrote."""

    turn_event_id: str | None = None
    action_event_id: str | None = None
    working_ids: list[str] = field(default_factory=list)
    extracted: list[MemoryOp] = field(default_factory=list)
    commit: CommitReport | None = None
    mentions: list[str] = field(default_factory=list)
    skipped_ops: list[SkippedOp] = field(default_factory=list)
    nap_due: bool = False
    nap: object | None = None
    """The quick nap's report, once it has run (naps run in the background: see ``nap_task``)."""
    nap_task: asyncio.Task[object | None] | None = None
    """The quick nap this record scheduled, when one was due. Awaiting it (or
    :meth:`MemoryCapability.wait_idle`) waits for the nap; when it is done, ``nap`` holds its
    report and a failure of the nap is in ``failures`` (step ``quick_nap``)."""
    failures: list[RecordFailure] = field(default_factory=list)
