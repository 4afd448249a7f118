"""Sessions: an LRU per tenant, the oldest 10 % evicted at the cap; turns parsed back."""

from __future__ import annotations

import pytest

from hippograph.agent import SessionSettings
from hippograph.agent.sessions import SessionManager, Turn, parse_turn
from hippograph.errors import InvalidInputError
from hippograph.scope import Scope

pytestmark = pytest.mark.unit

ACME = Scope.root("org", "acme")
GLOBEX = Scope.root("org", "globex")


async def test_lru_cap_per_tenant_evicts_the_oldest_tenth() -> None:
    sessions = SessionManager(None, SessionSettings(max_per_tenant=20, evict_fraction=0.1))
    users = [ACME.child("user", f"u{i}") for i in range(20)]
    for i, scope in enumerate(users):
        await sessions.open(scope, f"s{i}")
    await sessions.open(GLOBEX, "other")
    assert sessions.count(ACME) == 20 and sessions.count(GLOBEX) == 1
    await sessions.open(users[0], "s0")  # used again: now the most recent
    await sessions.open(ACME, "new")
    assert sessions.count(ACME) == 19  # 20 at the cap, 2 evicted, 1 added
    assert sessions.get(users[0], "s0") is not None
    assert sessions.get(users[1], "s1") is None and sessions.get(users[2], "s2") is None
    assert sessions.get(users[3], "s3") is not None
    assert sessions.count(GLOBEX) == 1 and sessions.evicted == 2
    assert len(sessions) == 20


async def test_default_cap_is_the_reference_limit() -> None:
    settings = SessionSettings()
    assert (settings.max_per_tenant, settings.evict_fraction) == (10_000, 0.1)
    sessions = SessionManager(None, settings)
    for i in range(10_000):
        await sessions.open(ACME, f"s{i}")
    await sessions.open(ACME, "one-more")
    assert sessions.count(ACME) == 9_001


async def test_sessions_are_per_scope_and_ids_are_checked() -> None:
    sessions = SessionManager(None, SessionSettings())
    a = await sessions.open(ACME.child("user", "a"), "chat")
    b = await sessions.open(ACME.child("user", "b"), "chat")
    assert a is not b
    assert await sessions.open(ACME.child("user", "a"), "chat") is a
    fresh = await sessions.open(ACME, None)
    assert len(fresh.id) == 32
    with pytest.raises(InvalidInputError, match="session_id"):
        await sessions.open(ACME, "no spaces allowed")


def test_history_keeps_the_last_turns_as_messages() -> None:
    sessions = SessionManager(None, SessionSettings(history_turns=2))
    session = sessions._new(ACME, "s")
    for i in range(3):
        session.record(Turn(f"q{i}", f"a{i}"))
    session.record(Turn("q3", ""))  # an empty reply cannot be sent back
    assert [m.text for m in session.messages()] == ["q2", "a2"]
    assert session.turns == 4


@pytest.mark.parametrize(
    ("text", "turn"),
    [
        ("User: hi | Agent: hello", Turn("hi", "hello")),
        ("User: a | b | Agent: c | Agent: d", Turn("a | b", "c | Agent: d")),
        ("User: x | Agent: ", Turn("x", "")),
        ("something else", None),
    ],
)
def test_parse_turn(text: str, turn: Turn | None) -> None:
    assert parse_turn(text) == turn


async def test_the_history_is_bounded_by_tokens_and_the_oldest_turns_wait_for_compaction() -> None:
    sessions = SessionManager(None, SessionSettings(history_turns=10, history_tokens=60))
    session = await sessions.open(ACME, "long")
    turns = [Turn("x" * 80, "y" * 40) for _ in range(4)]  # 30 tokens each by chars/4
    for turn in turns:
        session.record(turn)
    assert list(session.history) == turns[2:]  # two fit in 60 tokens, far below the 10 turns
    assert session.overflow == turns[:2] and session.turns == 4
    session.summary = "they talked"
    assert session.state() == {"session_summary": "they talked", "session_kept_turns": 2}
    session.record(Turn("z" * 400, "w"))  # one turn over the budget leaves none verbatim
    assert not session.history and len(session.overflow) == 5
