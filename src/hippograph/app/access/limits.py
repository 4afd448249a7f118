"""Per-key rate limits and per-scope daily token budgets, kept in Neo4j so that every API worker
shares one ledger. A request is counted in its key's fixed one-minute window by the same write
that authenticates it; a turn checks its scope's spend for the UTC day before it starts and
adds its model tokens after it ends: the agent's own :class:`~hippograph.agent.budget.TokenBudget`
over the key repository as its ledger (:func:`token_budget`), charged to the key's scope
(:func:`charged_scope`)."""

from __future__ import annotations

import math
import time

from hippograph.agent.budget import BudgetExceededError, TokenBudget, seconds_to_midnight
from hippograph.app.access.keys import ApiAuthError, Principal, hash_token
from hippograph.app.access.repository import KeyRepository
from hippograph.errors import HippographError
from hippograph.scope import Scope

__all__ = [
    "BudgetExceededError",
    "RateLimitedError",
    "authenticate",
    "charged_scope",
    "seconds_to_midnight",
    "token_budget",
]

WINDOW_SECONDS = 60.0


class RateLimitedError(HippographError):
    """Too many requests for this key in the current window."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(f"rate limit exceeded; retry after {retry_after} s")


async def authenticate(repo: KeyRepository, token: str | None, *, default_limit: int) -> Principal:
    """The principal of a token, counted against its key's rate limit.

    Raises:
        ApiAuthError: No token, an unknown one or a revoked one (one message for all three).
        RateLimitedError: The key's window is full.
    """
    if not token:
        raise ApiAuthError("missing or invalid API key")
    at = time.time()
    window = math.floor(at / WINDOW_SECONDS) * WINDOW_SECONDS
    found = await repo.use_key(hash_token(token), window, at)
    if found is None:
        raise ApiAuthError("missing or invalid API key")
    record, used = found
    limit = record.rate_limit or default_limit
    if used > limit:
        raise RateLimitedError(max(1, math.ceil(window + WINDOW_SECONDS - at)))
    return Principal.of(record)


def token_budget(repo: KeyRepository, daily_tokens: int) -> TokenBudget:
    """The agent's token budget with its ledger in Neo4j (shared by every API worker)."""
    return TokenBudget(daily_tokens, ledger=repo)


def charged_scope(principal: Principal, turn_scope: Scope) -> str:
    """Turns are charged to the scope the key is bound to (the tenant), so spreading turns
    over child scopes does not multiply the budget; dev mode: the turn's scope."""
    return principal.scope.key if principal.scope is not None else turn_scope.key
