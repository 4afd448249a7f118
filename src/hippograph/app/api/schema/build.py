"""The schema with its hardening extensions, each passed as a class or factory so that no
state is shared between requests."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import partial
from typing import Any

import strawberry
from graphql.error import GraphQLError
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter, SchemaExtension
from strawberry.types import ExecutionContext

from hippograph.app.api.errors import MaskInternalErrors
from hippograph.app.api.metrics import CallCount, start_counting, stop_counting
from hippograph.app.api.schema.mutation import Mutation
from hippograph.app.api.schema.query import Query
from hippograph.app.api.schema.subscription import Subscription
from hippograph.app.api.settings import ApiSettings
from hippograph.app.api.traces import GraphQLSpans

log = logging.getLogger("hippograph.api")


class CypherCalls(SchemaExtension):
    """Counts the Cypher calls of one operation; reports them as ``extensions.cypherCalls``."""

    def __init__(self) -> None:
        self.count: CallCount | None = None

    def on_operation(self) -> Iterator[None]:
        count, token = start_counting()
        self.count = count
        try:
            yield
        finally:
            stop_counting(token)
            context = self.execution_context.context
            services = getattr(context, "services", None)
            if services is not None and not getattr(context, "websocket", False):
                services.metrics.cypher_calls.observe(count.calls)
                # a document refused while parsing (the token limit, a syntax error) has no operation type
                if self.execution_context.graphql_document is not None:
                    kind = str(self.execution_context.operation_type.value)
                    services.metrics.operations.labels(kind).inc()

    def get_results(self) -> dict[str, Any]:
        return {"cypherCalls": self.count.calls} if self.count is not None else {}


class ApiSchema(strawberry.Schema):
    """Caller errors are answers, not incidents: they are logged at DEBUG by code only (their
    messages may quote user input); internal ones are logged with their id by the masker."""

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        for error in errors:
            log.debug("graphql error %s", (error.extensions or {}).get("code", "UNKNOWN"))


def build_schema(settings: ApiSettings | None = None) -> strawberry.Schema:
    s = settings or ApiSettings()
    return ApiSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=[
            partial(QueryDepthLimiter, max_depth=s.max_depth),
            partial(MaxTokensLimiter, max_token_count=s.max_tokens),
            partial(MaxAliasesLimiter, max_alias_count=s.max_aliases),
            MaskInternalErrors,
            CypherCalls,
            GraphQLSpans,
        ],
    )
