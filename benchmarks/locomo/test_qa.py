"""The question-answering harness without a server: the judge's prompt and labels, the data
file's checks, the endpoint the key may go to, and how records add up to accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.locomo.dataset import LocomoDataError, load
from benchmarks.locomo.judge import judge_prompt, parse_label
from benchmarks.locomo.qa import HarnessError, QaRecord, QaSettings, check_endpoint, render, report

pytestmark = pytest.mark.unit


def sample() -> dict[str, object]:
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat."}],
        },
        "qa": [{"question": "What did Ana adopt?", "answer": "a cat", "evidence": ["D1:1"], "category": 4}],
    }


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ('Same pet.\n{"label": "CORRECT"}', "CORRECT"),
        ('```json\n{"label": "wrong"}\n```', "WRONG"),
        ('{"label": "CORRECT"} and again {"label": "CORRECT"}', "CORRECT"),
        ('{"label": "CORRECT"} {"label": "WRONG"}', None),
        ("CORRECT", None),
        ('{"label": "MAYBE"}', None),
        ('{"verdict": "CORRECT"}', None),
        ("{not json", None),
        ("", None),
    ],
)
def test_a_label_counts_only_when_the_reply_gives_one_clearly(reply: str, label: str | None) -> None:
    assert parse_label(reply) == label


def test_the_judge_prompt_puts_each_value_on_its_own_line() -> None:
    prompt = judge_prompt("When did $gold Ana\nmove?", "May\n2023", "in May 2023")
    lines = prompt.splitlines()
    assert "Question: When did $gold Ana move?" in lines
    assert "Gold answer: May 2023" in lines
    assert "Generated answer: in May 2023" in lines
    assert '"label"' in prompt and "$" not in prompt.replace("$gold", "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[{", "is not JSON"),
        ("{}", "non-empty list of samples"),
        ("[]", "non-empty list of samples"),
    ],
)
def test_a_file_that_is_not_locomo_is_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "data.json"
    path.write_text(content)
    with pytest.raises(LocomoDataError, match=message):
        load(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LocomoDataError, match="cannot read"):
        load(tmp_path / "absent.json")


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        (lambda s: s.pop("qa"), "sample 0 \\(conv-x\\): missing field 'qa'"),
        (lambda s: s["conversation"]["session_1"][0].pop("text"), "missing field 'text'"),
        (lambda s: s["qa"][0].update(category=7), "question 0: category 7 is not one of"),
        (lambda s: s["conversation"].update(session_1_date_time="yesterday"), "session_1_date_time 'yesterday'"),
        (lambda s: s.update(conversation=[]), "wrong type"),
    ],
)
def test_a_sample_without_its_fields_is_refused_naming_them(tmp_path: Path, break_it: object, message: str) -> None:
    good, bad = sample(), sample()
    break_it(bad)  # type: ignore[operator]
    path = tmp_path / "data.json"
    path.write_text(json.dumps([good]))
    assert load(path)[0].questions[0].answer == "a cat"
    path.write_text(json.dumps([bad]))
    with pytest.raises(LocomoDataError, match=message):
        load(path)


@pytest.mark.parametrize(
    "url", ["https://api.anthropic.com", "http://127.0.0.1:8123", "http://localhost:9", "http://[::1]:80"]
)
def test_the_key_may_go_over_https_or_to_this_machine(url: str) -> None:
    assert check_endpoint(url + "/") == url


@pytest.mark.parametrize("url", ["http://api.example.com", "ftp://127.0.0.1", "api.anthropic.com", "https://"])
def test_the_key_is_not_sent_in_clear_or_to_a_non_url(url: str) -> None:
    with pytest.raises(HarnessError):
        check_endpoint(url)


def record(category: int, status: str, judgment: str | None = None, tokens: int = 100) -> QaRecord:
    names = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
    return QaRecord(
        conv_id="c",
        index=0,
        category=category,
        category_name=names[category],
        question="q",
        gold="g",
        evidence=[],
        status=status,
        judgment=judgment,  # type: ignore[arg-type]
        context_tokens=tokens,
    )


def test_accuracy_is_correct_over_asked_and_unjudged_is_never_correct() -> None:
    records = [
        record(4, "judged", "CORRECT", tokens=200),
        record(4, "judged", "WRONG"),
        record(4, "unjudged"),
        record(1, "no answer"),
        record(5, "excluded"),
        record(5, "excluded"),
    ]
    got = report(records)
    assert got["overall"].asked == 4 and got["overall"].correct == 1 and got["overall"].accuracy == 25.0
    single = got["single-hop"]
    assert (single.asked, single.correct, single.unjudged, single.no_answer) == (3, 1, 1, 0)
    assert single.context_tokens == pytest.approx(400 / 3)
    assert got["multi-hop"].no_answer == 1 and got["multi-hop"].accuracy == 0.0
    assert "adversarial" not in got and "temporal" not in got
    text = render(records, QaSettings(), offline=True)
    assert "4 questions asked, 2 adversarial left out" in text
    assert "| 4 single-hop | 3 | 1 | 1 | 0 | 33.3 | 133 |" in text
    assert "accuracy is meaningless" in text
    assert "| overall | 4 | 1 | 1 | 1 | 25.0 |" in text and "| 1 multi-hop | 1 |" in text


def test_settings_out_of_range_are_refused() -> None:
    with pytest.raises(HarnessError):
        QaSettings(judge_attempts=0)
    with pytest.raises(HarnessError):
        QaSettings(limit=0)
