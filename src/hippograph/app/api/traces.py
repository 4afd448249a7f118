"""Spans of the HTTP API through the OpenTelemetry API (no-ops until an SDK is set up): one
server span per HTTP request, named by its route template, and one span per GraphQL operation
inside it. Neither records a path's ids, a query's text or its variables."""

from __future__ import annotations

from collections.abc import Iterator

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.extensions import SchemaExtension

from hippograph.tracing import SpanKind, Status, StatusCode, span

__all__ = ["GraphQLSpans", "TracingMiddleware"]


class TracingMiddleware:
    """A ``SERVER`` span per HTTP request: ``<METHOD> <route template>`` with the HTTP
    semantic conventions' ``http.request.method``, ``http.route`` and
    ``http.response.status_code``; a 5xx answer sets the span's status to error."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = str(scope.get("method", ""))
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with span(method, {"http.request.method": method}, kind=SpanKind.SERVER) as current:
            try:
                await self.app(scope, receive, send_wrapper)
            finally:
                route = getattr(scope.get("route"), "path", None)
                if route is not None:
                    current.update_name(f"{method} {route}")
                    current.set_attribute("http.route", route)
                current.set_attribute("http.response.status_code", status)
                if status >= 500:
                    current.set_status(Status(StatusCode.ERROR, str(status)))


class GraphQLSpans(SchemaExtension):
    """A span per GraphQL operation: ``graphql <type> <name>`` with ``graphql.operation.type``
    and ``graphql.operation.name`` (never the document or its variables, which carry user text)."""

    def on_operation(self) -> Iterator[None]:
        with span("graphql") as current:
            yield
            ctx = self.execution_context
            name = ctx.operation_name or ""
            if ctx.graphql_document is not None:  # a document refused while parsing has no type
                kind = str(ctx.operation_type.value)
                current.update_name(f"graphql {kind} {name}".rstrip())
                current.set_attribute("graphql.operation.type", kind)
            if name:
                current.set_attribute("graphql.operation.name", name)
            errors = ctx.result.errors if ctx.result is not None else None
            if errors:
                current.set_attribute("hippograph.graphql.errors", len(errors))
