"""Token budgets and call records (hippograph.agent.budget) without a server: accounts per
day, the tenant as the default account, the metered stream's charge and records, bounds."""

from __future__ import annotations

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
