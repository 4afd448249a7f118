"""Evidence normalisation, the audited evidence and the recall metrics of the LoCoMo benchmark (collected by the
suite: ``benchmarks`` is one of pytest's ``testpaths``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.locomo.dataset import CATEGORIES, Conversation, Question, Turn, audited, normalise_evidence, regraded
from benchmarks.locomo.metrics import (
    all_found,
    evaluate,
    hit,
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
    assert result["multi-hop"]["H@5"] == pytest.approx(100.0)
    assert result["multi-hop"]["A@5"] == pytest.approx(0.0)
    assert result["overall"]["A@5"] == pytest.approx(200.0 / 3)


def test_hit_and_all_evidence() -> None:
    ranking = ["D1:1", "D1:2", "D2:1", "D3:4"]
    assert hit(ranking, ["D2:1", "D9:9"], 3) == 1.0
    assert hit(ranking, ["D2:1", "D9:9"], 2) == 0.0
    assert all_found(ranking, ["D2:1", "D3:4"], 3) == 0.0
    assert all_found(ranking, ["D2:1", "D3:4"], 4) == 1.0
    assert hit(ranking, [], 1) == all_found(ranking, [], 1) == 1.0


def test_category_mapping_is_the_datasets() -> None:
    assert CATEGORIES == {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def test_audited_evidence_replaces_cited_evidence_by_position(tmp_path: Path) -> None:
    q0 = Question("conv-9", "When?", "x", 2, ("D1:3",), index=0, sample=1)
    q1 = Question("conv-9", "Who?", "y", 4, ("D2:1",), index=1, sample=1)
    conv = Conversation("conv-9", ("A", "B"), (), (q0, q1))
    conv = replace(conv, turns=tuple(_turn(d) for d in sorted(KNOWN)))
    audit = tmp_path / "audit.json"
    entry = {"question_id": "locomo_1_qa1", "question": "Who?", "correct_evidence": ["D8:6; D9:17", "D99:1"]}
    audit.write_text(json.dumps([entry]))
    fixed = audited([conv], audit)
    assert [q.evidence for q in fixed[0].questions] == [("D1:3",), ("D8:6", "D9:17")]
    ranked = regraded([(q1, ["D8:6"])], fixed)
    assert ranked[0][0].evidence == ("D8:6", "D9:17")
    audit.write_text(json.dumps([{**entry, "question": "Another question?"}]))
    with pytest.raises(SystemExit, match="locomo_1_qa1"):
        audited([conv], audit)


def _turn(dia_id: str) -> Turn:
    return Turn("conv-9", dia_id, 1, 1, "1:56 pm on 8 May, 2023", "A", "hi", None)
