"""When a prospective trigger fires and how pending triggers rank (no server)."""

from __future__ import annotations

from typing import Any

import pytest

from hippograph.layers.triggers import FireReason, condition_topic, firing_key, rank_triggers, trigger_terms
from hippograph.models import Layer, MemoryNode
from hippograph.ops import MEMORY_OP_ADAPTER, SetTrigger, SnoozeTrigger

pytestmark = pytest.mark.unit

NOW = 1_800_000_000.0


def trigger(condition: str, *, created: float = 0.0, importance: float = 5.0, **props: Any) -> MemoryNode:
    return MemoryNode(
        id=f"t-{condition.replace(' ', '-')}", layer=Layer.PROSPECTIVE, label=f"when {condition}",
        content=condition, importance=importance, created_at=NOW - 1000 + created,
        properties={"condition": condition, "task": "do it", "resolved": False, **props},
    )  # fmt: skip


def test_condition_terms_are_names_and_content_words_not_phrasing() -> None:
    assert trigger_terms(trigger("the user mentions Lisbon")) == ["Lisbon"]
    assert trigger_terms(trigger("Bob asks about the budget")) == ["Bob", "budget"]
    assert trigger_terms(trigger("anything", about=["quarterly budget", "Al"])) == ["quarterly budget", "Al"]


@pytest.mark.parametrize(
    ("message", "fires"),
    [
        ("I saw Al yesterday", True),  # a short name matches as a word
        ("Alice called", False),  # never as a prefix
        ("the quarterly budget is due", True),
        ("the budget is due", False),  # a phrase needs all its words
        ("Quarterly budgets were approved", True),  # stems: quarterli, budget
    ],
)
def test_a_condition_holds_when_the_message_names_a_term(message: str, fires: bool) -> None:
    node = trigger("x", about=["Al", "quarterly budget"])
    [ranked] = rank_triggers([node], message, NOW)
    assert (ranked.fired is FireReason.CONDITION) is fires


def test_due_snoozed_resolved_and_future_triggers() -> None:
    due = trigger("rent", due_at=NOW - 10)
    overdue = trigger("gym", due_at=NOW - 1000)
    future = trigger("passport", due_at=NOW + 10)
    snoozed = trigger("dentist", due_at=NOW - 10, snoozed_until=NOW + 60)
    woke = trigger("plants", due_at=NOW - 5, snoozed_until=NOW - 1)
    done = trigger("done", due_at=NOW - 10, resolved=True)
    ranked = rank_triggers([due, overdue, future, snoozed, woke, done], "hello", NOW)
    assert [(r.node.id, r.fired) for r in ranked] == [
        (overdue.id, FireReason.DUE), (due.id, FireReason.DUE), (woke.id, FireReason.DUE),
        (snoozed.id, None), (future.id, None),
    ]  # fmt: skip
    assert ranked[3].snoozed_until == NOW + 60


def test_waiting_triggers_rank_by_relevance_importance_due_then_age() -> None:
    old = trigger("someday one", created=0)
    young = trigger("someday two", created=5)
    important = trigger("someday three", importance=9.0, created=9)
    soon = trigger("someday four", due_at=NOW + 5, created=9)
    relevant = trigger("weekend hiking", due_at=NOW + 99, created=9)
    ranked = rank_triggers([old, young, important, soon, relevant], "any hiking plans?", NOW)
    assert [r.node.id for r in ranked] == [relevant.id, important.id, soon.id, old.id, young.id]
    assert ranked[0].fired is None and ranked[0].matched == ("hike",)


def test_trigger_ops_take_iso_times_and_terms() -> None:
    op = MEMORY_OP_ADAPTER.validate_python(
        {"op": "set_trigger", "condition": "on the 3rd", "task": "pay rent", "due_at": "2026-12-03T09:00"}
    )
    assert isinstance(op, SetTrigger) and op.due_at == 1_796_288_400.0
    snooze = MEMORY_OP_ADAPTER.validate_python({"op": "snooze_trigger", "id": "abcdef12", "until": "2026-12-03"})
    assert isinstance(snooze, SnoozeTrigger) and snooze.until == 1_796_256_000.0
    with pytest.raises(ValueError, match="ISO 8601"):
        MEMORY_OP_ADAPTER.validate_python({"op": "snooze_trigger", "id": "abcdef12", "until": "next tuesday"})


def test_a_condition_holds_by_meaning_at_the_threshold_and_not_below() -> None:
    trip = trigger("the user plans a trip abroad")
    message = "We are flying to Portugal next month."  # no word of the condition
    assert rank_triggers([trip], message, NOW)[0].fired is None
    near = rank_triggers([trip], message, NOW, similarity={trip.id: 0.45}, threshold=0.3)[0]
    assert near.fired is FireReason.CONDITION and near.by_meaning and near.matched == ()
    assert rank_triggers([trip], message, NOW, similarity={trip.id: 0.29}, threshold=0.3)[0].fired is None
    assert rank_triggers([trip], message, NOW, similarity={trip.id: 0.45})[0].fired is None  # words only


def test_what_is_embedded_for_a_condition() -> None:
    assert condition_topic(trigger("the user plans a trip abroad")) == "the user plans a trip abroad"
    assert condition_topic(trigger("anything", about=["travel", "holidays"])) == "travel, holidays"
    assert condition_topic(trigger("on the 3rd", due_at=NOW)) == ""  # a time trigger is never matched by meaning


def test_a_due_trigger_shown_in_the_session_waits_unless_it_fires_anew() -> None:
    rent = trigger("rent day", due_at=NOW - 60)
    first = rank_triggers([rent], "Good morning.", NOW)[0]
    assert first.fired is FireReason.DUE and not first.reminded
    shown = {rent.id: firing_key(rent)}
    again = rank_triggers([rent], "What should I cook?", NOW, shown=shown)[0]
    assert again.fired is None and again.reminded
    named = rank_triggers([rent], "Did I pay the rent?", NOW, shown=shown)[0]  # a new matching turn
    assert named.fired is FireReason.DUE and not named.reminded
    woke = trigger("rent day", due_at=NOW - 60, snoozed_until=NOW - 1)  # a snooze that ended
    assert rank_triggers([woke], "Hi.", NOW, shown=shown)[0].fired is FireReason.DUE
    assert rank_triggers([rent], "Hi.", NOW, shown={rent.id: "due:0.0:None"})[0].fired is FireReason.DUE
