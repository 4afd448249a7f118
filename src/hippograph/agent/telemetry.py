"""Turn summaries, for telemetry (off by default).

After a turn's background consolidation finishes, the agent has a :class:`TurnSummary` —
what the turn cost and did, by numbers and names, never the user's or the model's text. It
goes two ways, from the one summary:

- onto the turn's background span (``hippograph.agent.consolidate``) as attributes
  ``hippograph.telemetry.*`` (:func:`summary_attributes`), so any OpenTelemetry exporter
  carries it; :meth:`JsonLinesTelemetry.span_exporter` is such an exporter, writing each
  summary as one JSON line (the same line as below);
- to the sink given as ``Agent(telemetry=...)``: any object with ``async record(summary)``
  (:class:`TelemetrySink`), for applications without an OpenTelemetry SDK.
  :class:`JsonLinesTelemetry` appends one JSON line per turn to a file.

A sink that fails is logged and never touches the turn or its memories.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from hippograph._extras import requires_extra
from hippograph.agent.turn_summary import (
    SUMMARY_PREFIX,
    TurnStats,
    TurnSummary,
    append_lines,
    summary_attributes,
    summary_from_attributes,
)

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

__all__ = [
    "SUMMARY_PREFIX",
    "JsonLinesTelemetry",
    "TelemetrySink",
    "TurnStats",
    "TurnSummary",
    "summary_attributes",
    "summary_from_attributes",
]


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
        async with self._lock:
            await asyncio.to_thread(append_lines, self.path, [summary])

    def span_exporter(self) -> SpanExporter:
        """An OpenTelemetry span exporter writing the same lines to :attr:`path`, one per
        finished span that carries a summary (needs ``pip install 'hippograph[otel]'``). Give
        it to a ``BatchSpanProcessor`` (it writes in the processor's thread), and not also
        as ``Agent(telemetry=...)``, which would write each line twice."""
        with requires_extra("otel"):
            from hippograph.agent.telemetry_spans import JsonLinesSpanExporter

        return JsonLinesSpanExporter(self.path)
