"""Token budgets and call records (hippograph.agent.budget) without a server: accounts per
day, the tenant as the default account, the metered stream's charge and records, bounds."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest

from hippograph.agent.budget import (
    BudgetExceededError,
    CallRecord,
    CallRecords,
    TokenBudget,
    metered,
    seconds_to_midnight,
)
from hippograph.errors import InvalidInputError
from hippograph.llm.events import MessageStart, TextDelta, Usage
from hippograph.scope import Scope

DAY = 86_400.0


async def test_an_account_is_refused_once_its_day_is_spent_and_renewed_the_next_day() -> None:
    now = [10 * DAY + 100.0]
    budget = TokenBudget(daily_tokens=100, clock=lambda: now[0])
    account = budget.for_scope(Scope.root("org", "acme").child("user", "bob"))
    assert account.scope_key == "org:acme"  # the tenant pays, not each child scope
    assert await account.check() == 0
    assert await account.spend(60) == 60 and await account.spend(0) == 60
    await account.spend(40)
    with pytest.raises(BudgetExceededError) as refused:
        await account.check()
    assert (refused.value.used, refused.value.budget, refused.value.retry_after) == (100, 100, DAY - 100)
    now[0] += DAY
    assert await account.check() == 0
    own = TokenBudget(daily_tokens=100, charge_to="scope", ledger=budget.ledger)
    assert own.for_scope(Scope.root("org", "acme").child("user", "bob")).scope_key == "org:acme/user:bob"


async def _events() -> AsyncIterator[object]:
    yield MessageStart(message_id="m1", model="claude-test")
    yield TextDelta(index=0, text="hi")
    yield Usage(input_tokens=10, output_tokens=5, cache_read_input_tokens=2)
    yield Usage(input_tokens=3, output_tokens=1)


async def test_the_metered_stream_charges_and_records_each_call() -> None:
    budget = TokenBudget(daily_tokens=1_000)
    records = CallRecords()
    account = budget.account("org:acme")
    seen = [e async for e in metered(_events(), account=account, records=records, scope_key="org:acme",
                                     conversation=lambda: "chat-1", clock=lambda: 5.0)]  # fmt: skip
    assert len(seen) == 4
    assert await account.check() == 21
    calls = records.of("chat-1")
    assert [(c.model, c.tokens, c.at) for c in calls] == [("claude-test", 17, 5.0), ("claude-test", 4, 5.0)]
    assert records.usage("chat-1").output_tokens == 6 and records.of("other") == []


async def test_a_stream_stopped_early_is_still_charged() -> None:
    account = TokenBudget(daily_tokens=1_000).account("org:acme")
    stream = metered(_events(), account=account)
    async for event in stream:
        if isinstance(event, Usage):
            break
    await stream.aclose()  # type: ignore[attr-defined]
    assert await account.check() == 17


async def test_a_spent_account_refuses_before_the_first_event() -> None:
    account = TokenBudget(daily_tokens=0).account("org:acme")
    with pytest.raises(BudgetExceededError):
        await anext(aiter(metered(_events(), account=account)))


class BrokenLedger:
    """A ledger whose store is down: its check, its charge or both raise."""

    def __init__(self, *, check: bool = True, charge: bool = True) -> None:
        self.fail_check, self.fail_charge = check, charge
        self.spent = 0

    async def tokens_used(self, ledger_id: str) -> int:
        if self.fail_check:
            raise ConnectionError("ledger store unreachable")
        return self.spent

    async def spend_tokens(self, ledger_id: str, scope_key: str, day: str, tokens: int, now: float) -> int:
        if self.fail_charge:
            raise ConnectionError("ledger store unreachable")
        self.spent += tokens
        return self.spent


@pytest.mark.parametrize(("check", "charge"), [(True, True), (True, False), (False, True)])
async def test_a_failing_ledger_never_blocks_the_stream_and_is_counted(
    caplog: pytest.LogCaptureFixture, check: bool, charge: bool
) -> None:
    ledger = BrokenLedger(check=check, charge=charge)
    budget = TokenBudget(daily_tokens=1_000, ledger=ledger)
    with caplog.at_level(logging.DEBUG, logger="hippograph.agent.budget"):
        seen = [e async for e in metered(_events(), account=budget.account("org:acme"))]
    assert len(seen) == 4  # every event arrived
    assert (budget.failures.check, budget.failures.charge) == (int(check), int(charge))
    assert ledger.spent == (0 if charge else 21)
    failures = [r for r in caplog.records if "token ledger failed" in r.getMessage()]
    assert len(failures) == int(check) + int(charge)
    assert all(r.levelno == logging.WARNING and "org:acme" in r.getMessage() for r in failures)
    assert all("hi" not in r.getMessage().split() for r in failures)  # the turn's text is never logged


async def test_a_spent_account_still_refuses_when_the_ledger_works() -> None:
    budget = TokenBudget(daily_tokens=10, ledger=BrokenLedger(check=False, charge=False))
    [_ async for _ in metered(_events(), account=budget.account("org:acme"))]
    with pytest.raises(BudgetExceededError):
        await anext(aiter(metered(_events(), account=budget.account("org:acme"))))
    assert (budget.failures.check, budget.failures.charge) == (0, 0)


def test_call_records_keep_their_bounds() -> None:
    records = CallRecords(max_conversations=2, per_conversation=3)

    def call(conversation: str, n: int) -> CallRecord:
        return CallRecord(conversation, "org:a", None, n, 0, 0, 0, float(n))

    for n in range(5):
        records.add(call("a", n))
    records.add(call("b", 0))
    records.add(call("a", 9))  # a is now the most recent
    records.add(call("c", 0))  # b, the least recent, is dropped
    assert records.conversations() == ["a", "c"]
    assert [c.input_tokens for c in records.of("a")] == [3, 4, 9]
    with pytest.raises(InvalidInputError):
        CallRecords(per_conversation=0)
    with pytest.raises(InvalidInputError):
        TokenBudget(daily_tokens=-1)
    assert 1 <= seconds_to_midnight() <= DAY
