"""Working memory ("now"): a FIFO of the last entries per full scope path, thinking capped and
kept 24 h, the last two verbatim in the prompt, seen from its own scope only."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError
from hippograph.layers.working import DAY, THINKING_MAX_CHARS
from hippograph.memory import Memory
from hippograph.models import Durability, Layer
from hippograph.scope import Scope
from tests.support.memory_internals import internals


async def test_push_keeps_a_fifo_of_ten_per_scope(memory: Memory, tenant: Scope) -> None:
    wm = internals(memory).working
    for i in range(13):
        await wm.push(tenant, f"turn number {i}", session_id="s1")
    entries = await wm.get_context(tenant)
    assert [e.content for e in entries] == [f"turn number {i}" for i in range(3, 13)]
    assert await wm.count(tenant) == 10
    assert [e.content for e in await wm.get_context(tenant, 3)] == [
        "turn number 10",
        "turn number 11",
        "turn number 12",
    ]
    assert await wm.get_context(tenant, 0) == []


async def test_entries_are_transient_with_a_ttl_and_thinking_is_capped(memory: Memory, tenant: Scope) -> None:
    turn = await internals(memory).working.push(tenant, "User: hello")
    thought = await internals(memory).working.push(tenant, "t" * 2000, kind="thinking")
    assert turn.durability is Durability.TRANSIENT and turn.ttl == DAY and turn.layer is Layer.WORKING
    assert turn.properties == {"kind": "turn"} and thought.properties == {"kind": "thinking"}
    assert len(thought.content) == THINKING_MAX_CHARS
    stored = await internals(memory).store.get_node(tenant, thought.id)
    assert stored is not None and len(stored.content) == THINKING_MAX_CHARS


@pytest.mark.parametrize("text", ["", "   ", None, 42])
async def test_push_refuses_empty_or_non_text(memory: Memory, tenant: Scope, text: object) -> None:
    with pytest.raises(InvalidInputError):
        await internals(memory).working.push(tenant, text)  # type: ignore[arg-type]
    assert await internals(memory).working.count(tenant) == 0


async def test_each_scope_path_has_its_own_fifo_and_sees_only_its_own(memory: Memory, tenant: Scope) -> None:
    child, sibling = tenant.child("user", "a"), tenant.child("user", "b")
    await internals(memory).working.push(tenant, "parent turn")
    for i in range(12):
        await internals(memory).working.push(child, f"child turn {i}")
    await internals(memory).working.push(sibling, "sibling turn")
    assert [e.content for e in await internals(memory).working.get_context(tenant)] == ["parent turn"]
    assert [e.content for e in await internals(memory).working.get_context(sibling)] == ["sibling turn"]
    child_view = [e.content for e in await internals(memory).working.get_context(child)]
    assert child_view == [f"child turn {i}" for i in range(2, 12)]
    # recall of the working layer from the child never shows the parent's or the sibling's
    items = await internals(memory).working.retrieve(child, "parent sibling turn", top_k=20)
    assert items and {i.node.scope_key for i in items} == {child.key}


async def test_clear_empties_one_scope_or_one_session(memory: Memory, tenant: Scope) -> None:
    child = tenant.child("user", "a")
    for session in ("s1", "s1", "s2"):
        await internals(memory).working.push(tenant, f"in {session}", session_id=session)
    await internals(memory).working.push(child, "child keeps this")
    assert await internals(memory).working.clear(tenant, session_id="s1") == 2
    assert [e.content for e in await internals(memory).working.get_context(tenant)] == ["in s2"]
    assert await internals(memory).working.clear(tenant) == 1
    assert await internals(memory).working.get_context(tenant) == []
    assert [e.content for e in await internals(memory).working.get_context(child)] == ["child keeps this"]
    assert await internals(memory).working.clear(tenant) == 0


async def test_render_context_summarises_older_entries_and_keeps_the_last_two_verbatim(
    memory: Memory, tenant: Scope
) -> None:
    wm = internals(memory).working
    await wm.push(tenant, "We met in Lisbon. It rained all week. The food was great.")
    await wm.push(tenant, "Second older entry. Nothing else.")
    await wm.push(tenant, "Recent one, password: hunter2")
    await wm.push(tenant, "Most recent one")
    off = await wm.render_context(tenant)
    assert off.splitlines() == [
        "[working] Recent one, password: [REDACTED]",
        "[working] Most recent one",
    ]
    extractive = await wm.render_context(tenant, mode="extractive")
    lines = extractive.splitlines()
    assert lines[0] == "[working summary] We met in Lisbon. … The food was great. Second older entry. … Nothing else."
    assert lines[1:] == off.splitlines()
    assert "hunter2" not in extractive


async def test_summarize_is_extractive(memory: Memory, tenant: Scope) -> None:
    text = await internals(memory).working.summarize(tenant, ["One. Two. Three.", "Single sentence", ""])
    assert text == "One. … Three.\nSingle sentence"


@pytest.mark.parametrize("n", [-1, -10])
async def test_a_negative_window_is_refused(memory: Memory, tenant: Scope, n: int) -> None:
    await internals(memory).working.push(tenant, "one")
    with pytest.raises(InvalidInputError, match="n"):
        await internals(memory).working.get_context(tenant, n)
