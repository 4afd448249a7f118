"""Answers drawn from memory: which shown memories a reply draws on, and recall ranking a
derived memory below its sources."""

from __future__ import annotations

import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.derived import demote_derived, drawn_on, sources_of
from hippograph.retrieval.types import RecallItem, ScoreParts

pytestmark = pytest.mark.unit


def node(nid: str, content: str = "x", drawn_from: list[str] | None = None) -> MemoryNode:
    properties = {} if drawn_from is None else {"drawn_from": list(drawn_from)}
    return MemoryNode(id=nid, layer=Layer.EPISODIC, content=content, properties=properties)  # type: ignore[arg-type]


def item(n: MemoryNode, score: float) -> RecallItem:
    return RecallItem(node=n, score=score, parts=ScoreParts(relevance=score))


def test_a_derived_memory_goes_just_below_its_lowest_source_found() -> None:
    answer = item(node("answer", drawn_from=["fact", "turn", "gone"]), 0.9)
    items = [answer, item(node("fact"), 0.7), item(node("other"), 0.6), item(node("turn"), 0.5)]
    out = demote_derived(items)
    assert [i.node.id for i in out] == ["fact", "other", "turn", "answer"]
    assert out[-1].score < 0.5 and out[-1].below == ["fact", "turn"]
    assert "below its sources fact, turn" in out[-1].explain()


def test_a_derived_memory_below_its_sources_already_or_without_them_keeps_its_score() -> None:
    low = item(node("answer", drawn_from=["fact"]), 0.2)
    alone = item(node("lonely", drawn_from=["absent"]), 0.8)
    out = demote_derived([alone, item(node("fact"), 0.7), low])
    assert [(i.node.id, i.score) for i in out] == [("lonely", 0.8), ("fact", 0.7), ("answer", 0.2)]
    assert out[2].below == ["fact"] and out[0].below == []


def test_chains_settle_an_answer_from_an_answer_goes_below_both() -> None:
    first = item(node("a1", drawn_from=["fact"]), 0.8)
    second = item(node("a2", drawn_from=["a1"]), 0.9)
    out = demote_derived([second, first, item(node("fact"), 0.5)])
    assert [i.node.id for i in out] == ["fact", "a1", "a2"]


def test_no_derived_memory_leaves_the_items_as_they_are() -> None:
    items = [item(node("a"), 0.9), item(node("b"), 0.1)]
    assert demote_derived(items) == items


def test_sources_of_ignores_junk_and_itself() -> None:
    n = MemoryNode(id="me", layer=Layer.EPISODIC, content="x", properties={"drawn_from": ["me", 3, "src"]})
    assert sources_of(n) == ["src"]
    assert sources_of(MemoryNode(id="y", layer=Layer.EPISODIC, content="x", properties={"drawn_from": "src"})) == []


def test_drawn_on_keeps_shown_memories_sharing_the_replys_own_words() -> None:
    fact = node("fact", "The user lives in Lisbon.")
    turn = node("turn", "User: I live in Lisbon. | Agent: Got it: you live in Lisbon. I'll remember that.")
    dog = node("dog", "The user's dog is called Rex.")
    reply = "From what I remember: user's home: The user lives in Lisbon."
    assert drawn_on("Where do I live now?", reply, [fact, dog, turn]) == ["fact", "turn"]
    # an acknowledgement repeats the user's words: it draws on nothing
    assert drawn_on("I live in Lisbon.", "Got it: you live in Lisbon.", [fact, turn]) == []
