"""The JSON-lines telemetry file as an OpenTelemetry span exporter (the SDK's interface; the
``otel`` extra). Reached through :meth:`hippograph.agent.JsonLinesTelemetry.span_exporter`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from hippograph.agent.turn_summary import append_lines, summary_from_attributes

__all__ = ["JsonLinesSpanExporter"]

log = logging.getLogger(__name__)


class JsonLinesSpanExporter(SpanExporter):
    """Appends one JSON line per finished span carrying a turn summary (the background span
    of each agent turn) to ``path``; other spans pass by. A failed write is logged and
    reported to the span processor as a failure."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        summaries = [s for s in (summary_from_attributes(span.attributes) for span in spans) if s is not None]
        try:
            with self._lock:
                append_lines(self.path, summaries)
        except OSError:
            log.warning("telemetry: could not append to %s", self.path, exc_info=True)
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Nothing to release: every export opens and closes the file."""
