"""An optional telemetry sink for turn summaries (off by default).

After a turn's background consolidation finishes, the agent hands a :class:`TurnSummary` —
what the turn cost and did, by numbers and names, never the user's or the model's text — to
the sink given as ``Agent(telemetry=...)``: any object with ``async record(summary)``
(:class:`TelemetrySink`). :class:`JsonLinesTelemetry` appends one JSON line per turn to a file.
A sink that fails is logged and never touches the turn or its memories.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from hippograph.llm.types import TokenUsage

__all__ = ["JsonLinesTelemetry", "TelemetrySink", "TurnStats", "TurnSummary"]


class TurnStats(BaseModel):
    """The foreground part of a turn, taken when the turn hands its exchange on."""

    model_config = ConfigDict(frozen=True)

    model: str | None = None
    stop_reason: str | None = None
    model_calls: int = 0
    usage: TokenUsage = Field(default_factory=TokenUsage)
    stages_ms: dict[str, float] = Field(default_factory=dict)
    tools: list[str] = Field(default_factory=list)
    message_chars: int = 0
    reply_chars: int = 0
    ops: int = 0
    stage_failures: list[str] = Field(default_factory=list)


class TurnSummary(BaseModel):
    """One turn, summarised for telemetry (one JSON line in :class:`JsonLinesTelemetry`)."""

    model_config = ConfigDict(frozen=True)

    at: float = Field(default_factory=time.time)
    scope_key: str
    session_id: str
    task_id: str
    turn: TurnStats
    turn_event_id: str | None = None
    action_event_id: str | None = None
    applied_ops: int = 0
    failed_ops: int = 0
    skipped_ops: int = 0
    quick_nap: bool = False
    background_ms: float = 0.0
    background_failures: list[str] = Field(default_factory=list)


@runtime_checkable
class TelemetrySink(Protocol):
    """Receives a summary of every finished turn."""

    async def record(self, summary: TurnSummary) -> None:
        """Keep ``summary`` (raising is logged and ignored)."""
        ...


class JsonLinesTelemetry:
    """A :class:`TelemetrySink` appending one JSON line per turn to ``path`` (created with its
    folder when missing). Writes run in a worker thread, one at a time, so the event loop
    never waits on the disk.

    Args:
        path: The file to append to.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = asyncio.Lock()

    async def record(self, summary: TurnSummary) -> None:
        """Append ``summary`` as one line."""
        line = summary.model_dump_json() + "\n"
        async with self._lock:
            await asyncio.to_thread(self._append, line)

    def _append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(line)
