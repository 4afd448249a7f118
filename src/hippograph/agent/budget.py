"""Token budgets and per-conversation call records of an agent's model calls.

A :class:`TokenBudget` caps the model tokens an account may spend per UTC day. An account
is a key, by default the root of the turn's scope (the tenant), so spreading turns over child
scopes does not multiply the budget. A turn checks its account before it starts
(:class:`BudgetExceededError` when the day's tokens are spent) and is charged after it ends,
also when the caller stops consuming its stream. The ledger that keeps the spend is a port
(:class:`TokenLedger`): :class:`InMemoryTokenLedger` for one process, the API's ledger in
Neo4j for every worker of a deployment. A ledger that fails (its check or its charge raises)
never blocks a turn: the failure is logged at WARNING (the account's key and the error's type,
no user content), counted in the budget's :class:`LedgerFailures`, and the turn goes on
(unchecked, or uncharged).

:class:`CallRecords` keeps what each model call of a conversation cost (:class:`CallRecord`),
the newest ``per_conversation`` calls of at most ``max_conversations`` conversations (least
recently used dropped first).

Example::

    budget = TokenBudget(daily_tokens=200_000)
    records = CallRecords()
    agent = Agent(memory, model, budget=budget, call_records=records)
    reply = await agent.run(scope, "Hello")
    records.of(reply.session_id)  # one CallRecord per model call of the turn
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, Protocol, TypeVar, runtime_checkable

from hippograph.errors import HippographError, InvalidInputError
from hippograph.llm.events import MessageStart, Usage
from hippograph.llm.types import TokenUsage
from hippograph.scope import Scope

__all__ = [
    "BudgetAccount",
    "BudgetExceededError",
    "CallRecord",
    "CallRecords",
    "InMemoryTokenLedger",
    "LedgerFailures",
    "TokenBudget",
    "TokenLedger",
    "metered",
    "seconds_to_midnight",
    "usage_tokens",
]

log = logging.getLogger(__name__)
MAX_CONVERSATIONS = 10_000
CALLS_PER_CONVERSATION = 500
E = TypeVar("E")


class BudgetExceededError(HippographError):
    """The account has spent its model tokens for today."""

    def __init__(self, scope_key: str, used: int, budget: int, retry_after: int) -> None:
        self.scope_key, self.used, self.budget, self.retry_after = scope_key, used, budget, retry_after
        super().__init__(f"daily token budget of {scope_key} spent ({used}/{budget}); retry after {retry_after} s")


@runtime_checkable
class TokenLedger(Protocol):
    """Where the tokens spent per account and day are kept."""

    async def tokens_used(self, ledger_id: str) -> int:
        """Tokens spent on ``ledger_id`` (an account and a day) so far."""
        ...

    async def spend_tokens(self, ledger_id: str, scope_key: str, day: str, tokens: int, now: float) -> int:
        """Add ``tokens`` to ``ledger_id``; the new total."""
        ...


class InMemoryTokenLedger:
    """A :class:`TokenLedger` in this process (its days are kept until the process ends or
    :meth:`clear`; a deployment of several workers needs a shared ledger)."""

    def __init__(self) -> None:
        self._used: dict[str, int] = {}

    async def tokens_used(self, ledger_id: str) -> int:
        return self._used.get(ledger_id, 0)

    async def spend_tokens(self, ledger_id: str, scope_key: str, day: str, tokens: int, now: float) -> int:
        self._used[ledger_id] = self._used.get(ledger_id, 0) + tokens
        return self._used[ledger_id]

    def clear(self) -> None:
        """Forget every day's spend."""
        self._used.clear()


@dataclass
class LedgerFailures:
    """Ledger errors that turns logged and went on past: ``check`` before a turn (it ran
    unchecked), ``charge`` after it (its tokens were not added)."""

    check: int = 0
    charge: int = 0


@dataclass(frozen=True, slots=True)
class BudgetAccount:
    """The daily token ledger of one account."""

    ledger: TokenLedger
    scope_key: str
    limit: int
    clock: Callable[[], float] = time.time
    failures: LedgerFailures = field(default_factory=LedgerFailures)
    """Where a turn counts a failure of this ledger (its budget's counter)."""

    def _day(self) -> tuple[str, str]:
        day = datetime.fromtimestamp(self.clock(), UTC).strftime("%Y-%m-%d")
        return day, f"{self.scope_key}|{day}"

    async def check(self) -> int:
        """Tokens spent today; raises BudgetExceededError when none are left."""
        _, ledger = self._day()
        used = await self.ledger.tokens_used(ledger)
        if used >= self.limit:
            raise BudgetExceededError(self.scope_key, used, self.limit, seconds_to_midnight(self.clock()))
        return used

    async def spend(self, tokens: int) -> int:
        """Charge ``tokens`` to today; the day's total."""
        day, ledger = self._day()
        if tokens <= 0:
            return await self.ledger.tokens_used(ledger)
        return await self.ledger.spend_tokens(ledger, self.scope_key, day, tokens, self.clock())


@dataclass(frozen=True)
class TokenBudget:
    """Model tokens per UTC day per account.

    Attributes:
        daily_tokens: Tokens an account may spend per day (0: none).
        ledger: Where the spend is kept (default: in this process).
        charge_to: Charge a turn to the root of its scope (the tenant, the default) or to
            the turn's own scope.
        clock: Seconds since the epoch (for tests).
        failures: The ledger's failures that turns went on past, counted (the API exposes
            them as ``hippograph_budget_ledger_failures_total``).
    """

    daily_tokens: int
    ledger: TokenLedger = field(default_factory=InMemoryTokenLedger)
    charge_to: Literal["root", "scope"] = "root"
    clock: Callable[[], float] = time.time
    failures: LedgerFailures = field(default_factory=LedgerFailures, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.daily_tokens, bool) or not isinstance(self.daily_tokens, int) or self.daily_tokens < 0:
            raise InvalidInputError("daily_tokens", "must be an integer ≥ 0")
        if self.charge_to not in ("root", "scope"):
            raise InvalidInputError("charge_to", "must be 'root' or 'scope'")
        if not isinstance(self.ledger, TokenLedger):
            raise InvalidInputError("ledger", "needs async tokens_used(ledger_id) and spend_tokens(...)")

    def account(self, key: str) -> BudgetAccount:
        """The account named ``key`` (a scope key, usually)."""
        return BudgetAccount(self.ledger, key, self.daily_tokens, self.clock, self.failures)

    def for_scope(self, scope: Scope) -> BudgetAccount:
        """The account a turn of ``scope`` is charged to (see ``charge_to``)."""
        charged = scope.ancestors()[0] if self.charge_to == "root" and scope.depth > 1 else scope
        return self.account(charged.key)


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One model call of a conversation: what it cost, by numbers and names."""

    conversation: str
    scope_key: str
    model: str | None
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    at: float

    @property
    def tokens(self) -> int:
        """Every token of the call (input, output and cache)."""
        return self.input_tokens + self.output_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


class CallRecords:
    """The model calls of each conversation, newest last, within fixed bounds.

    Args:
        max_conversations: Conversations kept; past it the least recently recorded is dropped.
        per_conversation: Calls kept per conversation (the oldest dropped first).
    """

    def __init__(
        self, *, max_conversations: int = MAX_CONVERSATIONS, per_conversation: int = CALLS_PER_CONVERSATION
    ) -> None:
        for name, value in (("max_conversations", max_conversations), ("per_conversation", per_conversation)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(name, "must be a positive integer")
        self._max = max_conversations
        self._per = per_conversation
        self._calls: OrderedDict[str, deque[CallRecord]] = OrderedDict()

    def add(self, record: CallRecord) -> None:
        """Keep ``record`` under its conversation."""
        calls = self._calls.get(record.conversation)
        if calls is None:
            calls = self._calls[record.conversation] = deque(maxlen=self._per)
            while len(self._calls) > self._max:
                self._calls.popitem(last=False)
        else:
            self._calls.move_to_end(record.conversation)
        calls.append(record)

    def of(self, conversation: str) -> list[CallRecord]:
        """The calls kept of ``conversation``, oldest first (empty when unknown)."""
        return list(self._calls.get(conversation, ()))

    def usage(self, conversation: str) -> TokenUsage:
        """The summed usage of the calls kept of ``conversation``."""
        total = TokenUsage()
        for r in self._calls.get(conversation, ()):
            total = total.plus(
                TokenUsage(
                    input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                    cache_creation_input_tokens=r.cache_creation_input_tokens,
                    cache_read_input_tokens=r.cache_read_input_tokens,
                )
            )  # fmt: skip
        return total

    def conversations(self) -> list[str]:
        """The conversations kept, least recently recorded first."""
        return list(self._calls)

    def __len__(self) -> int:
        return len(self._calls)


def usage_tokens(usage: TokenUsage) -> int:
    """Every token of ``usage`` (input, output and cache): what a budget is charged."""
    return usage.total_input_tokens + usage.output_tokens


async def metered(
    events: AsyncIterator[E],
    *,
    account: BudgetAccount | None,
    records: CallRecords | None = None,
    scope_key: str = "",
    conversation: Callable[[], str | None] = lambda: None,
    clock: Callable[[], float] = time.time,
) -> AsyncIterator[E]:
    """``events`` as they come, after ``account`` is checked (:class:`BudgetExceededError`
    before the first event when it is spent), each :class:`Usage` noted: charged to
    ``account`` when the stream ends (also when the consumer stops early, and shielded from
    its cancellation) and, with ``records``, kept as a :class:`CallRecord` of the
    ``conversation`` (read when the usage arrives, so a session opened by the turn itself is
    named). ``events`` is closed when this stream ends. A ledger that fails to check or to
    charge is logged and counted (``account.failures``), never raised: the turn goes on."""
    spent = 0
    model: str | None = None
    try:
        if account is not None:
            await _check(account)
        async for event in events:
            if isinstance(event, MessageStart):
                model = event.model
            elif isinstance(event, Usage):
                spent += usage_tokens(event)
                name = conversation()
                if records is not None and name:
                    records.add(
                        CallRecord(
                            conversation=name, scope_key=scope_key, model=model, input_tokens=event.input_tokens,
                            output_tokens=event.output_tokens,
                            cache_creation_input_tokens=event.cache_creation_input_tokens,
                            cache_read_input_tokens=event.cache_read_input_tokens, at=clock(),
                        )
                    )  # fmt: skip
            yield event
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
        if spent and account is not None:
            await asyncio.shield(_charge(account, spent))


async def _check(account: BudgetAccount) -> None:
    """``account.check()``; a failing ledger is logged and counted, and the turn runs unchecked."""
    try:
        await account.check()
    except BudgetExceededError:
        raise
    except Exception as exc:
        account.failures.check += 1
        log.warning(
            "the token ledger failed to check %s (%s); the turn goes on unchecked",
            account.scope_key, type(exc).__name__, exc_info=True,
        )  # fmt: skip


async def _charge(account: BudgetAccount, tokens: int) -> None:
    """``account.spend(tokens)``; a failing ledger is logged and counted, the tokens not charged."""
    try:
        await account.spend(tokens)
    except Exception as exc:
        account.failures.charge += 1
        log.warning(
            "the token ledger failed to charge %s tokens to %s (%s); they are not counted",
            tokens, account.scope_key, type(exc).__name__, exc_info=True,
        )  # fmt: skip


def seconds_to_midnight(now: float | None = None) -> int:
    """Seconds until the next UTC midnight (at least 1)."""
    at = time.time() if now is None else now
    current = datetime.fromtimestamp(at, UTC)
    midnight = current.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() + 86_400
    return max(1, math.ceil(midnight - at))
