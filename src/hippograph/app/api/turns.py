"""One agent turn as the API runs it: the agent's token budget (its ledger in Neo4j, see
:func:`~hippograph.app.access.limits.token_budget`) charged to the key's scope: checked before,
the model's tokens charged after (also when the client goes away mid-stream)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from hippograph.agent import AgentResponse
from hippograph.app.access.keys import Principal
from hippograph.app.access.limits import charged_scope
from hippograph.app.api.services import ApiServices
from hippograph.errors import InvalidInputError
from hippograph.models import check_id
from hippograph.scope import Scope

MAX_MESSAGE = 20_000


def check_turn(message: str, session_id: str | None) -> None:
    if not isinstance(message, str) or not message.strip():
        raise InvalidInputError("message", "must be a non-empty string")
    if len(message) > MAX_MESSAGE:
        raise InvalidInputError("message", f"longer than {MAX_MESSAGE} characters")
    if session_id is not None:
        check_id(session_id, "sessionId")


async def run_turn(
    services: ApiServices, principal: Principal, scope: Scope, message: str, session_id: str | None
) -> AgentResponse:
    """One whole turn (raises BudgetExceededError before starting when the budget is spent)."""
    check_turn(message, session_id)
    return await services.agent.run(scope, message, session_id=session_id, charge_to=charged_scope(principal, scope))


async def stream_turn(
    services: ApiServices, principal: Principal, scope: Scope, message: str, session_id: str | None
) -> AsyncIterator[Any]:
    """The agent's typed events of one turn; the budget is checked first (BudgetExceededError)."""
    check_turn(message, session_id)
    events = services.agent.stream(scope, message, session_id=session_id, charge_to=charged_scope(principal, scope))
    try:
        async for event in events:
            yield event
    finally:  # the agent's stream charges the budget when it is closed
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
