"""One agent turn as the API runs it: the scope's daily token budget checked before, the
model's tokens charged after (also when the client goes away mid-stream)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from hippograph.agent import AgentResponse
from hippograph.app.access.keys import Principal
from hippograph.app.access.limits import Budget
from hippograph.app.api.services import ApiServices
from hippograph.errors import InvalidInputError
from hippograph.models import check_id
from hippograph.scope import Scope

MAX_MESSAGE = 20_000


def _budget(services: ApiServices, principal: Principal, scope: Scope) -> Budget:
    return Budget(services.repo.keys, Budget.charged_scope(principal, scope), services.settings.daily_token_budget)


def check_turn(message: str, session_id: str | None) -> None:
    if not isinstance(message, str) or not message.strip():
        raise InvalidInputError("message", "must be a non-empty string")
    if len(message) > MAX_MESSAGE:
        raise InvalidInputError("message", f"longer than {MAX_MESSAGE} characters")
    if session_id is not None:
        check_id(session_id, "sessionId")


def usage_tokens(data: dict[str, Any]) -> int:
    keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(int(data.get(k) or 0) for k in keys)


async def run_turn(
    services: ApiServices, principal: Principal, scope: Scope, message: str, session_id: str | None
) -> AgentResponse:
    """One whole turn (raises BudgetExceededError before starting when the budget is spent)."""
    check_turn(message, session_id)
    budget = _budget(services, principal, scope)
    await budget.check()
    response = await services.agent.run(scope, message, session_id=session_id)
    await budget.spend(usage_tokens(response.usage.model_dump()))
    return response


async def stream_turn(
    services: ApiServices, principal: Principal, scope: Scope, message: str, session_id: str | None
) -> AsyncIterator[Any]:
    """The agent's typed events of one turn; the budget is checked first (BudgetExceededError)."""
    check_turn(message, session_id)
    budget = _budget(services, principal, scope)
    await budget.check()
    spent = 0
    try:
        async for event in services.agent.stream(scope, message, session_id=session_id):
            if getattr(event, "type", None) == "usage":
                spent += usage_tokens(event.model_dump())
            yield event
    finally:
        if spent:
            await asyncio.shield(budget.spend(spent))
