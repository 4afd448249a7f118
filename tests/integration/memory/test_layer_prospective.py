"""Prospective memory ("future"): triggers (condition, task, resolved), read with get_pending
from their own scope only, never returned by recall."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError, InvalidQueryError, NotFoundError
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from tests.support.memory_internals import internals

T0 = 1_700_000_000.0


async def test_set_trigger_stores_condition_and_task(memory: Memory, tenant: Scope) -> None:
    trig = await internals(memory).prospective.set_trigger(tenant, "the user mentions Lisbon", "suggest the tram tour")
    assert trig.layer is Layer.PROSPECTIVE and trig.importance == 6.0
    assert trig.content == "When the user mentions Lisbon: suggest the tram tour"
    assert trig.properties == {"condition": "the user mentions Lisbon", "task": "suggest the tram tour",
                               "resolved": False, "due_at": None}  # fmt: skip
    assert [t.id for t in await internals(memory).prospective.get_pending(tenant)] == [trig.id]


@pytest.mark.parametrize(("condition", "task"), [("", "x"), ("x", "  "), (None, "x"), ("x", 5)])
async def test_a_trigger_needs_a_condition_and_a_task(
    memory: Memory, tenant: Scope, condition: object, task: object
) -> None:
    with pytest.raises(InvalidInputError):
        await internals(memory).prospective.set_trigger(tenant, condition, task)  # type: ignore[arg-type]
    assert await internals(memory).prospective.count(tenant) == 0


async def test_pending_are_oldest_first_and_filter_by_due_time(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).prospective
    late = await pm.set_trigger(tenant, "friday", "send the report", due_at=T0 + 100)
    soon = await pm.set_trigger(tenant, "monday", "water the plants", due_at=T0 + 10)
    whenever = await pm.set_trigger(tenant, "someday", "learn the banjo")
    assert [t.id for t in await pm.get_pending(tenant)] == [late.id, soon.id, whenever.id]
    assert [t.id for t in await pm.get_pending(tenant, due_before=T0 + 50)] == [soon.id]
    assert [t.id for t in await pm.get_pending(tenant, due_before=T0 + 100)] == [late.id, soon.id]


async def test_resolve_trigger_takes_it_off_the_pending_list(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).prospective
    trig = await pm.set_trigger(tenant, "the build is green", "ship it")
    resolved = await pm.resolve_trigger(tenant, trig.id, outcome="shipped")
    assert resolved.properties["resolved"] is True and resolved.properties["outcome"] == "shipped"
    assert isinstance(resolved.properties["resolved_at"], float)
    assert await pm.get_pending(tenant) == []
    fact = await memory.remember(tenant, "not a trigger")
    for bad in (fact.id, "no-such-trigger"):
        with pytest.raises(NotFoundError):
            await pm.resolve_trigger(tenant, bad)


async def test_triggers_are_seen_from_their_own_scope_only(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).prospective
    child, sibling = tenant.child("user", "a"), tenant.child("user", "b")
    parent_trig = await pm.set_trigger(tenant, "org event", "tell everyone")
    child_trig = await pm.set_trigger(child, "child event", "tell the child")
    await pm.set_trigger(sibling, "sibling event", "tell the sibling")
    assert [t.id for t in await pm.get_pending(child)] == [child_trig.id]
    assert [t.id for t in await pm.get_pending(tenant)] == [parent_trig.id]
    with pytest.raises(NotFoundError):
        await pm.resolve_trigger(child, parent_trig.id)


async def test_triggers_are_never_recalled(memory: Memory, tenant: Scope) -> None:
    await internals(memory).prospective.set_trigger(tenant, "harbor lantern is lit", "harbor lantern report")
    await memory.remember(tenant, "unrelated fact about soup")
    assert await internals(memory).prospective.retrieve(tenant, "harbor lantern") == []
    result = await memory.recall(tenant, "harbor lantern is lit report", top_k=20)
    assert all(i.node.layer is not Layer.PROSPECTIVE for i in result.items)
    with pytest.raises(InvalidQueryError, match="prospective"):
        await memory.recall(tenant, "harbor lantern", layers=["prospective"])


async def test_render_says_when_and_what_without_credentials(memory: Memory, tenant: Scope) -> None:
    trig = await internals(memory).prospective.set_trigger(tenant, "the deploy fails", "log in with password: hunter2")
    assert internals(memory).prospective.render_for_prompt(trig) == (
        "[prospective] when the deploy fails: log in with password: [REDACTED]"
    )
