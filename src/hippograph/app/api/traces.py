"""A span per GraphQL operation, through the OpenTelemetry API (a no-op until an SDK is set
up). FastAPI itself makes the server span of each HTTP request (``POST /graphql``, with the
HTTP semantic conventions); the operation's span sits inside it, and the recall, agent and
store spans of its resolvers inside that."""

from __future__ import annotations

from collections.abc import Iterator

from strawberry.extensions import SchemaExtension

from hippograph.tracing import span

__all__ = ["GraphQLSpans"]


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
