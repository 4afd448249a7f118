"""Episodic memory ("when"): events and turns, a NEXT chain per session, MENTIONS links to
facts, time-window and session queries, counting, rendering."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError
from hippograph.layers.episodic import TURN_IMPORTANCE, turn_text
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from tests.integration.memory.helpers import edges_of
from tests.support.memory_internals import internals

T0 = 1_700_000_000.0
HOUR = 3600.0


async def test_store_turn_is_an_event_of_importance_three(memory: Memory, tenant: Scope) -> None:
    turn = await internals(memory).episodic.store_turn(tenant, "where is the harbor?", "down the hill", session_id="s1")
    assert turn.layer is Layer.EPISODIC and turn.importance == TURN_IMPORTANCE == 3.0
    assert (
        turn.content
        == turn_text("where is the harbor?", "down the hill")
        == ("User: where is the harbor? | Agent: down the hill")
    )
    assert turn.properties == {"kind": "turn"} and turn.session_id == "s1" and turn.scope_key == tenant.key
    stored = await internals(memory).store.get_node(tenant, turn.id)
    assert stored is not None and stored.content == turn.content and stored.occurred_at == turn.occurred_at


async def test_events_of_a_session_form_one_next_chain(memory: Memory, tenant: Scope) -> None:
    ep = internals(memory).episodic
    a = await ep.store_event(tenant, "first", session_id="s1", occurred_at=T0)
    other = await ep.store_event(tenant, "other session", session_id="s2", occurred_at=T0 + 1)
    b = await ep.store_event(tenant, "second", session_id="s1", occurred_at=T0 + 2)
    c = await ep.store_event(tenant, "third", session_id="s1", occurred_at=T0 + 3)
    loose = await ep.store_event(tenant, "no session", occurred_at=T0 + 4)
    nexts = {
        (e["source"], e["target"]) for e in await edges_of(internals(memory).store.conn, tenant) if e["type"] == "NEXT"
    }
    assert nexts == {(a.id, b.id), (b.id, c.id)}
    assert other.id not in {x for pair in nexts for x in pair} and loose.id not in {x for pair in nexts for x in pair}


async def test_an_event_mentions_the_facts_it_talks_about(memory: Memory, tenant: Scope) -> None:
    fact = await memory.remember(tenant, "Alice owns a red kayak")
    event = await internals(memory).episodic.store_event(tenant, "Alice paddled her kayak", mentions=[fact.id])
    neighbours = await internals(memory).store.get_neighbors(tenant, event.id, Relationship.MENTIONS)
    assert [(n.id, e.source, e.target) for n, e in neighbours] == [(fact.id, event.id, fact.id)]


async def test_query_events_by_window_and_session_newest_first(memory: Memory, tenant: Scope) -> None:
    ep = internals(memory).episodic
    events = [await ep.store_event(tenant, f"event {i}", session_id=f"s{i % 2}", occurred_at=T0 + i * HOUR)
              for i in range(6)]  # fmt: skip
    ids = [e.id for e in events]
    assert [e.id for e in await ep.query_events(tenant)] == ids[::-1]
    window = await ep.query_events(tenant, since=T0 + HOUR, until=T0 + 4 * HOUR)
    assert [e.id for e in window] == [ids[3], ids[2], ids[1]]
    assert [e.id for e in await ep.query_events(tenant, session_id="s0")] == [
        ids[4],
        ids[2],
        ids[0],
    ]
    assert [e.id for e in await ep.list_events(tenant, limit=2, offset=1)] == [ids[4], ids[3]]
    assert await ep.count_events(tenant) == 6 and await ep.count_events(tenant, session_id="s1") == 3


async def test_events_blend_across_ancestors_but_are_counted_per_scope(memory: Memory, tenant: Scope) -> None:
    child = tenant.child("user", "u")
    await internals(memory).episodic.store_event(tenant, "org-wide outage", occurred_at=T0)
    await internals(memory).episodic.store_event(child, "user logged in", occurred_at=T0 + 1)
    await internals(memory).episodic.store_event(tenant.child("user", "other"), "someone else", occurred_at=T0 + 2)
    assert [e.content for e in await internals(memory).episodic.query_events(child)] == [
        "user logged in",
        "org-wide outage",
    ]
    assert [e.content for e in await internals(memory).episodic.query_events(tenant)] == ["org-wide outage"]
    assert await internals(memory).episodic.count_events(child) == 1


async def test_render_shows_date_and_speaker_and_masks_credentials(memory: Memory, tenant: Scope) -> None:
    event = await internals(memory).episodic.store_event(
        tenant, "my api key is sk-ant-api03-abcdefghijklmnopqrstu",
        properties={"speaker": "Caroline", "date": "8 May 2023", "password": "hunter2"},
    )  # fmt: skip
    text = internals(memory).episodic.render_for_prompt(event)
    assert text == "[episodic] (8 May 2023) Caroline: my api key is [REDACTED]"
    # scrubbed at write time too: the key never reaches the graph
    assert "sk-ant" not in internals(memory).episodic.render_for_prompt(event, None)
    assert "password" not in event.properties


@pytest.mark.parametrize(("field", "kwargs"), [("limit", {"limit": -1}), ("offset", {"offset": -5})])
async def test_negative_paging_is_a_caller_error_not_a_store_fault(
    memory: Memory, tenant: Scope, field: str, kwargs: dict[str, int]
) -> None:
    await internals(memory).episodic.store_event(tenant, "something happened")
    with pytest.raises(InvalidInputError, match=field):
        await internals(memory).episodic.query_events(tenant, **kwargs)
    with pytest.raises(InvalidInputError, match=field):
        await internals(memory).episodic.list_events(tenant, **kwargs)
