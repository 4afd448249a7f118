"""Spans for tests: the SDK's tracer provider, installed once per process as the global one,
with an in-memory exporter that each test empties first (the ``spans`` fixture)."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_EXPORTER = InMemorySpanExporter()


def recording() -> InMemorySpanExporter:
    """The exporter every finished span reaches, emptied; the SDK set up on first use."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    return _EXPORTER


def named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    """The spans called ``name``, in the order they finished."""
    return [s for s in spans if s.name == name]


def one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    """The one span called ``name`` (fails when there is none or several)."""
    found = named(spans, name)
    assert len(found) == 1, f"{len(found)} spans named {name!r} among {[s.name for s in spans]}"
    return found[0]


def children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """The spans whose parent is ``parent``, in the order they started."""
    assert parent.context is not None
    mine = [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]
    return sorted(mine, key=lambda s: s.start_time or 0)
