"""Per-key rate limits and per-scope daily token budgets, kept in Neo4j so that every API worker
shares one ledger. A request is counted in its key's fixed one-minute window by the same write
that authenticates it; a turn checks its scope's spend for the UTC day before it starts and
adds its model tokens after it ends."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from hippograph.app.access.keys import ApiAuthError, Principal, hash_token
from hippograph.app.access.repository import KeyRepository
from hippograph.errors import HippographError
from hippograph.scope import Scope

WINDOW_SECONDS = 60.0


class RateLimitedError(HippographError):
    """Too many requests for this key in the current window."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(f"rate limit exceeded; retry after {retry_after} s")


class BudgetExceededError(HippographError):
    """The scope has spent its model tokens for today."""

    def __init__(self, scope_key: str, used: int, budget: int, retry_after: int) -> None:
        self.scope_key, self.used, self.budget, self.retry_after = scope_key, used, budget, retry_after
        super().__init__(f"daily token budget of {scope_key} spent ({used}/{budget}); retry after {retry_after} s")


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


@dataclass(frozen=True, slots=True)
class Budget:
    """The daily token ledger of the scope a principal's turns are charged to."""

    repo: KeyRepository
    scope_key: str
    limit: int

    @staticmethod
    def charged_scope(principal: Principal, turn_scope: Scope) -> str:
        """Turns are charged to the scope the key is bound to (the tenant), so spreading
        turns over child scopes does not multiply the budget; dev mode: the turn's scope."""
        return principal.scope.key if principal.scope is not None else turn_scope.key

    def _day(self) -> tuple[str, str]:
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        return day, f"{self.scope_key}|{day}"

    async def check(self) -> int:
        """Tokens spent today; raises BudgetExceededError when none are left."""
        _, ledger = self._day()
        used = await self.repo.tokens_used(ledger)
        if used >= self.limit:
            raise BudgetExceededError(self.scope_key, used, self.limit, seconds_to_midnight())
        return used

    async def spend(self, tokens: int) -> int:
        day, ledger = self._day()
        if tokens <= 0:
            return await self.repo.tokens_used(ledger)
        return await self.repo.spend_tokens(ledger, self.scope_key, day, tokens, time.time())


def seconds_to_midnight() -> int:
    current = datetime.now(UTC)
    midnight = current.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() + 86_400
    return max(1, math.ceil(midnight - current.timestamp()))
