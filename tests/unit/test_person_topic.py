"""Person-centred recall's text and maths: what is embedded, and how it becomes evidence."""

from __future__ import annotations

import pytest

from hippograph.retrieval.person_topic import head_phrase, rest_of_query, topic_evidence, topic_texts


@pytest.mark.parametrize(
    ("query", "head"),
    [
        ("What activities does Melanie partake in?", "activities"),
        ("Which classical musicians does Caroline enjoy listening to?", "classical musicians"),
        ("What musical artists/bands has Melanie seen?", "musical artists/bands"),
        ("what pets does she have", "pets"),
        ("What did Melanie paint recently?", None),  # not a list question
        ("What is Caroline's identity?", None),
        ("Which city has Jon visited?", None),  # singular: one answer, not a list
        ("Would Caroline enjoy a trip to the mountains?", None),
    ],
)
def test_the_noun_phrase_a_list_question_asks_for(query: str, head: str | None) -> None:
    assert head_phrase(query) == head


def test_the_rest_of_the_query_leaves_the_person_out() -> None:
    assert rest_of_query("What is Caroline's identity?", "caroline") == "What is identity?"
    assert (
        rest_of_query("Would CAROLINE enjoy Carolines' mountains?", "caroline") == "Would enjoy Carolines' mountains?"
    )
    assert topic_texts("What activities does Melanie do?", "melanie") == ["What activities does do?", "activities"]
    assert topic_texts("Melanie", "melanie") == []  # nothing left to ask


def test_topic_evidence_is_z_scored_over_the_pool_and_given_to_the_persons_memories() -> None:
    cosines = {"a": [0.9, 0.1], "b": [0.5, 0.5], "c": [0.1, 0.9], "other": [0.5, 0.5]}
    rest_only = topic_evidence(cosines, {"a", "b", "c"}, 1.0, 0.0)
    assert set(rest_only) == {"a", "b", "c"}  # the other speaker's memory gets nothing
    assert rest_only["a"] == pytest.approx(-rest_only["c"]) and rest_only["a"] > 0
    assert rest_only["b"] == pytest.approx(0.0)
    both = topic_evidence(cosines, {"a", "b", "c"}, 1.0, 0.5)
    assert both["a"] == pytest.approx(rest_only["a"])  # below-average head cosine: no penalty
    assert both["c"] == pytest.approx(rest_only["c"] + 0.5 * rest_only["a"])
    assert topic_evidence({"a": [0.3, 0.3], "b": [0.3, 0.3]}, {"a"}, 1.0, 0.5) == {"a": 0.0}  # all equal
    assert topic_evidence(cosines, set(), 1.0, 0.5) == {}
