"""Evidence normalisation and the recall metrics of the LoCoMo benchmark (collected by the
suite: ``benchmarks`` is one of pytest's ``testpaths``)."""

from __future__ import annotations

import pytest

from benchmarks.locomo.dataset import Question, normalise_evidence
from benchmarks.locomo.metrics import (
    evaluate,
    session_recall,
    top_sessions,
    turn_recall,
)

pytestmark = pytest.mark.unit

KNOWN = frozenset({"D1:3", "D8:6", "D9:17", "D11:26", "D30:5", "D2:1"})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ("D1:3",)),
        (["D8:6; D9:17"], ("D8:6", "D9:17")),
        (["D8:6,D9:17"], ("D8:6", "D9:17")),
        (["D:11:26"], ("D11:26",)),
        (["D30:05"], ("D30:5",)),
        (["D99:1", "D1:3"], ("D1:3",)),
        (["D1:3", "D1:3"], ("D1:3",)),
        (["", "x"], ()),
        ([], ()),
    ],
)
def test_normalise_evidence(raw: list[str], expected: tuple[str, ...]) -> None:
    assert normalise_evidence(raw, KNOWN) == expected


def test_turn_recall() -> None:
    ranking = ["D1:1", "D1:2", "D2:1", "D3:4"]
    assert turn_recall(ranking, ["D2:1", "D3:4"], 3) == 0.5
    assert turn_recall(ranking, ["D2:1", "D3:4"], 4) == 1.0
    assert turn_recall(ranking, ["D9:9"], 4) == 0.0
    assert turn_recall(ranking, [], 1) == 1.0


def test_session_recall_uses_distinct_sessions() -> None:
    ranking = ["D1:1", "D1:2", "D1:5", "D2:1", "D3:4"]
    assert top_sessions(ranking, 2) == [1, 2]
    assert session_recall(ranking, ["D2:9", "D3:1"], 2) == 0.5
    assert session_recall(ranking, ["D2:9", "D3:1"], 5) == 1.0
    assert session_recall(ranking, [], 2) == 1.0


def test_evaluate_groups_by_category_and_overall() -> None:
    q1 = Question("c", "a?", "x", 1, ("D1:1", "D2:1"))
    q2 = Question("c", "b?", "y", 4, ("D3:1",))
    q3 = Question("c", "c?", "z", 5, ())
    result = evaluate(
        [(q1, ["D1:1"] + [f"D9:{i}" for i in range(1, 30)]), (q2, ["D3:1"]), (q3, [])],
        turn_ks=(5,),
        session_ks=(2,),
    )
    assert result["multi-hop"]["R@5"] == pytest.approx(50.0)
    assert result["single-hop"]["R@5"] == pytest.approx(100.0)
    assert result["adversarial"]["R@5"] == pytest.approx(100.0)
    assert result["overall"]["n"] == 3
    assert result["overall"]["R@5"] == pytest.approx(250.0 / 3)
    assert result["multi-hop"]["S@2"] == pytest.approx(50.0)
