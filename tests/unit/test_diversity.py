"""Diversity across sessions in the final order (retrieval/diversity.py)."""

from __future__ import annotations

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.diversity import diversify
from hippograph.retrieval.types import RecallItem, ScoreParts


def item(nid: str, score: float, session: str | None) -> RecallItem:
    node = MemoryNode(id=nid, layer=Layer.EPISODIC, label=nid, content=nid, session_id=session)
    return RecallItem(node=node, score=score, parts=ScoreParts(relevance=score))


RANKED = [
    item("a1", 1.0, "s1"),
    item("a2", 0.9, "s1"),
    item("a3", 0.8, "s1"),
    item("b", 0.7, "s2"),
    item("none", 0.6, None),
    item("c", 0.5, "s3"),
]


def ids(items: list[RecallItem]) -> list[str]:
    return [i.node.id for i in items]


def test_each_item_of_a_placed_session_is_discounted_and_scores_stay() -> None:
    # after a1: a2 0.45, a3 0.4, b 0.7, none 0.6 (never discounted), c 0.5
    out = diversify(RANKED, 0.5)
    assert ids(out) == ["a1", "b", "none", "c", "a2", "a3"]
    assert [i.score for i in sorted(out, key=lambda i: i.node.id)] == [1.0, 0.9, 0.8, 0.7, 0.5, 0.6]


def test_a_weak_discount_moves_only_what_it_outweighs() -> None:
    # a2 0.9 × 0.8 = 0.72 still beats b 0.7; a3 0.8 × 0.64 = 0.512 falls below none 0.6, not c
    assert ids(diversify(RANKED, 0.2)) == ["a1", "a2", "b", "none", "a3", "c"]


def test_off_leaves_the_order() -> None:
    assert ids(diversify(RANKED, 0.0)) == ids(RANKED)
