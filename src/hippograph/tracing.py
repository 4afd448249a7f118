"""Traces through the OpenTelemetry API: a no-op until the application configures an SDK.

hippograph only ever calls the API (``opentelemetry-api``, a core dependency); it never
configures a tracer provider, exporter or sampler. An application that wants the spans sets
one up (``opentelemetry-sdk`` and an exporter such as OTLP) before it uses hippograph — see
the operations guide for the span names and attributes.

Spans are named ``hippograph.<component>.<what>`` (``hippograph.recall``,
``hippograph.recall.embed``, ``hippograph.agent.turn`` …); model calls follow the GenAI
semantic conventions (``chat <model>``, ``gen_ai.*`` attributes). Attributes carry numbers,
names and keys, never a user's or a model's text.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from typing import TypeVar

from opentelemetry import context, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, use_span
from opentelemetry.util.types import AttributeValue

__all__ = [
    "SCOPE_KEY",
    "TRACER_NAME",
    "AttributeValue",
    "Span",
    "SpanKind",
    "Status",
    "StatusCode",
    "in_span",
    "span",
    "tracer",
    "use_span",
]

TRACER_NAME = "hippograph"
"""The instrumentation scope of every span hippograph starts."""
SCOPE_KEY = "hippograph.scope.key"
"""The attribute naming the memory scope a span worked on (its key string)."""

T = TypeVar("T")


@cache
def tracer() -> trace.Tracer:
    """hippograph's tracer from the global tracer provider: a proxy that follows the provider
    the application sets, even when it sets it after the first span."""
    return trace.get_tracer(TRACER_NAME)


@contextmanager
def span(
    name: str, attributes: Mapping[str, AttributeValue] | None = None, *, kind: SpanKind = SpanKind.INTERNAL
) -> Iterator[Span]:
    """A span, current while the block runs; an exception leaving the block is recorded on it
    and sets its status to error. Never wrap a ``yield`` of an async generator in it (the span
    would stay current while the consumer runs): use :func:`in_span` there."""
    with tracer().start_as_current_span(name, attributes=attributes, kind=kind) as current:
        yield current


async def in_span(current: Span, steps: AsyncIterator[T]) -> AsyncIterator[T]:
    """``steps`` with ``current`` the current span while ``steps`` runs, and not while the
    consumer of what it yields runs. An exception from ``steps`` is recorded on ``current``;
    the caller ends ``current`` (after adding what it learned from the steps)."""
    ctx = trace.set_span_in_context(current)
    try:
        while True:
            token = context.attach(ctx)
            try:
                item = await anext(steps)
            except StopAsyncIteration:
                return
            finally:
                context.detach(token)
            yield item
    except Exception as exc:
        current.record_exception(exc)
        current.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        close = getattr(steps, "aclose", None)
        if close is not None:
            await close()
