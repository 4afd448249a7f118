"""The LoCoMo question-answering harness end to end on a three-question slice: turns ingested
into the real Neo4j, the agent's context assembly, answers and judgments over HTTP from the
fake Messages API (the real ``anthropic`` client), every record in the JSONL file."""

from __future__ import annotations

import io
import json
from pathlib import Path

from benchmarks.locomo.dataset import load
from benchmarks.locomo.qa import QaSettings, claude, render, report, run_qa
from hippograph.llm import AnthropicModel
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.testing.fake_anthropic import FakeAnthropic, FakeReply, extractive_reply
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401

KEY = "sk-ant-qa-test-8c1f0e"

SLICE = [
    {
        "sample_id": "conv-t",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Melanie", "dia_id": "D1:1", "text": "How was your week?"},
                {"speaker": "Caroline", "dia_id": "D1:2", "text": "I brought home a puppy named Rex!"},
                {"speaker": "Melanie", "dia_id": "D1:3", "text": "I spent the weekend painting the lake."},
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {"speaker": "Melanie", "dia_id": "D2:1", "text": "I ran the charity race last Saturday."},
                {"speaker": "Caroline", "dia_id": "D2:2", "text": "Rex chewed my shoes again."},
                {"speaker": "Melanie", "dia_id": "D2:3", "text": "Pottery class is my new hobby."},
            ],
        },
        "qa": [
            {"question": "Which puppy did Caroline bring home?", "answer": "a puppy named Rex",
             "evidence": ["D1:2"], "category": 4},
            {"question": "When did Melanie run the charity race?", "answer": "the Saturday before 20 May 2023",
             "evidence": ["D2:1"], "category": 2},
            {"question": "What hobbies does Melanie have?", "answer": "painting, pottery",
             "evidence": ["D1:3", "D2:3"], "category": 1},
            {"question": "What did Caroline paint?", "adversarial_answer": "the lake",
             "evidence": ["D1:3"], "category": 5},
        ],
    }
]  # fmt: skip


def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo-slice.json"
    path.write_text(json.dumps(SLICE))
    return path


def flaky_judge(body: dict[str, object]) -> FakeReply:
    """The extractive responder, but the judge's first reply on the race question has no label
    and every reply on the hobbies question only says the word, outside JSON."""
    prompt = json.dumps(body["messages"])
    if "Gold answer:" in prompt and "charity race" in prompt and not flaky_judge.__dict__.get("race"):
        flaky_judge.__dict__["race"] = True
        return FakeReply.of_text("I think the answer is right.")
    if "Gold answer:" in prompt and "hobbies" in prompt:
        return FakeReply.of_text("CORRECT")
    return extractive_reply(body)


async def test_three_questions_are_answered_judged_and_kept(
    hippograph_memory: Memory,
    memory_scope: Scope,
    fake_anthropic: FakeAnthropic,  # noqa: F811
    tmp_path: Path,
) -> None:
    fake_anthropic.respond_with(flaky_judge)
    model = AnthropicModel(api_key=KEY, base_url=fake_anthropic.base_url, max_retries=0)
    settings = QaSettings(answer_model="claude-answer", judge_model="claude-judge")
    out = tmp_path / "qa.jsonl"
    with out.open("w") as sink:
        records = await run_qa(
            hippograph_memory, load(data_file(tmp_path)), memory_scope,
            answerer=model, judge=model, settings=settings, out=sink,
        )  # fmt: skip
    await model.aclose()

    kept = [json.loads(line) for line in out.read_text().splitlines()]
    by_index = {r["index"]: r for r in kept}
    assert len(kept) == 4 and sorted(by_index) == [0, 1, 2, 3]
    puppy, race, hobbies, adversarial = (by_index[i] for i in range(4))

    assert adversarial["status"] == "excluded" and adversarial["answer"] == "" and adversarial["context_ids"] == []
    assert puppy["status"] == "judged" and puppy["judgment"] == "CORRECT"
    assert "D1:2" in puppy["context_turns"] and len(puppy["context_ids"]) == len(puppy["context_turns"])
    assert "Rex" in puppy["answer"] and puppy["answer_usage"]["input_tokens"] > 0
    assert 0 < puppy["context_tokens"] <= puppy["budget_tokens"] == 2000
    assert puppy["recall_ms"] > 0 and puppy["answer_ms"] > 0 and len(puppy["judge_ms"]) == 1
    assert race["status"] == "judged" and race["judge_replies"][0] == "I think the answer is right."
    assert len(race["judge_replies"]) == 2, "a reply without a label is asked again"
    assert hobbies["status"] == "unjudged" and hobbies["judgment"] is None
    assert hobbies["judge_replies"] == ["CORRECT"] * 3, "retried, then unjudged: never correct"

    requests = fake_anthropic.requests
    assert len(requests) == 3 + 1 + 2 + 3
    sent = {r.headers.get("x-api-key") or r.headers.get("authorization", "").removeprefix("Bearer ") for r in requests}
    assert sent == {KEY}, "the key goes with every request to the configured endpoint"
    answers = [r for r in requests if r.body["model"] == "claude-answer"]
    assert len(answers) == 3
    asked = answers[0].body
    system = "\n".join(block["text"] for block in asked["system"])
    assert "conversations between Caroline and Melanie" in system and "## 9. MEMORY CONTEXT" in system
    assert asked["messages"][-1]["content"] in {q["question"] for q in SLICE[0]["qa"]}  # type: ignore[index, union-attr]

    got = report(records)
    assert (got["overall"].asked, got["overall"].correct, got["overall"].unjudged) == (3, 2, 1)
    text = render(records, settings, offline=False)
    assert "3 questions asked, 1 adversarial left out" in text
    assert KEY not in text and KEY not in out.read_text()


async def test_without_a_key_the_run_goes_through_the_local_fake(
    hippograph_memory: Memory, memory_scope: Scope, tmp_path: Path
) -> None:
    sink = io.StringIO()
    async with claude(None, "http://unused.example") as (model, offline):
        assert offline
        records = await run_qa(
            hippograph_memory, load(data_file(tmp_path)), memory_scope,
            answerer=model, judge=model, settings=QaSettings(limit=1), out=sink,
        )  # fmt: skip
    [only] = records
    assert only.status == "judged" and only.judgment == "CORRECT" and "Rex" in only.answer
    assert json.loads(sink.getvalue())["judge_replies"] == only.judge_replies
    assert "accuracy is meaningless" in render(records, QaSettings(), offline=offline)
