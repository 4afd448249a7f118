# mypy: disable-error-code="untyped-decorator"
"""Subscriptions over graphql-transport-ws: an agent turn's typed events as they happen, and
consolidation runs of a scope as they finish (read back from the runs the consolidator stores —
Neo4j Community has no change-data-capture, and the library's own records are the source)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import strawberry

from hippograph.app.access.keys import Role
from hippograph.app.access.limits import BudgetExceededError
from hippograph.app.api.schema.common import ctx
from hippograph.app.api.schema.consolidation import ConsolidationReport
from hippograph.app.api.schema.events import BudgetExceeded, TurnEvent, to_graphql
from hippograph.app.api.turns import check_turn, stream_turn
from hippograph.errors import InvalidInputError

POLL_SECONDS = 1.0


@strawberry.type
class Subscription:
    @strawberry.subscription(description="One agent turn, streamed: message start, activation, text deltas, …")
    async def turn(
        self, info: strawberry.Info, scope: str, message: str, session_id: str | None = None
    ) -> AsyncGenerator[TurnEvent, None]:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        check_turn(message, session_id)
        try:
            async for event in stream_turn(context.services, context.principal, target, message, session_id):
                yield to_graphql(event)
        except BudgetExceededError as exc:
            yield BudgetExceeded(scope_key=exc.scope_key, used=exc.used, budget=exc.budget, retry_after=exc.retry_after)

    @strawberry.subscription(description="Consolidation runs of a scope as they finish (polled every second).")
    async def consolidation_progress(
        self, info: strawberry.Info, scope: str, include_recent: int = 0
    ) -> AsyncGenerator[ConsolidationReport, None]:
        context = ctx(info)
        target = context.principal.target(scope)
        if not 0 <= include_recent <= 20:
            raise InvalidInputError("includeRecent", "must be between 0 and 20")
        consolidator = context.services.consolidator
        seen: set[str] = set()
        recent = await consolidator.list_runs(target, limit=20)
        for report in reversed(recent[:include_recent]):
            yield ConsolidationReport.of(report)
        seen.update(r.run_id for r in recent)
        while True:
            await asyncio.sleep(POLL_SECONDS)
            runs = await consolidator.list_runs(target, limit=20)
            for report in reversed(runs):
                if report.run_id not in seen:
                    seen.add(report.run_id)
                    yield ConsolidationReport.of(report)
