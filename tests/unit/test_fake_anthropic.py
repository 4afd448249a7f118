"""The fake Messages API itself: the wire format a real client sees, byte for byte."""

from __future__ import annotations

import json

import httpx
import pytest

from hippograph.testing.fake_anthropic import (
    FakeAnthropic,
    FakeError,
    FakeReply,
    FakeText,
    FakeThinking,
    FakeToolUse,
    extractive_reply,
)
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401

pytestmark = pytest.mark.unit

HEADERS = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01"}
BODY = {"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}


def _sse(text: str) -> list[tuple[str, dict[str, object]]]:
    events = []
    for chunk in text.strip().split("\n\n"):
        name_line, data_line = chunk.split("\n")
        assert name_line.startswith("event: ") and data_line.startswith("data: ")
        events.append((name_line[7:], json.loads(data_line[6:])))
    return events


def test_stream_has_the_real_event_sequence(fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    fake_anthropic.enqueue(
        FakeReply(
            content=[
                FakeThinking("hmm", signature="s"),
                FakeText("ok"),
                FakeToolUse("t", {"a": 1}),
            ],
            chunk_size=100,
        )
    )
    response = httpx.post(f"{fake_anthropic.base_url}/v1/messages", json={**BODY, "stream": True}, headers=HEADERS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _sse(response.text)

    assert [name for name, _ in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert [d["type"] for d in deltas] == [  # type: ignore[index]
        "thinking_delta",
        "signature_delta",
        "text_delta",
        "input_json_delta",
        "input_json_delta",
    ]
    assert events[-2][1]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}


def test_errors_use_the_real_envelope_and_headers(fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    fake_anthropic.enqueue(FakeError.rate_limited(retry_after=7), FakeError.overloaded())
    url = f"{fake_anthropic.base_url}/v1/messages"

    limited = httpx.post(url, json=BODY, headers=HEADERS)
    overloaded = httpx.post(url, json=BODY, headers=HEADERS)
    unauthenticated = httpx.post(url, json=BODY)

    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "7"
    assert limited.json()["error"]["type"] == "rate_limit_error"
    assert overloaded.status_code == 529
    assert overloaded.json()["type"] == "error"
    assert overloaded.json()["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert overloaded.headers["request-id"].startswith("req_")
    assert unauthenticated.status_code == 401
    assert len(fake_anthropic.requests) == 3


def test_an_unscripted_request_fails_loudly(fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    response = httpx.post(f"{fake_anthropic.base_url}/v1/messages", json=BODY, headers=HEADERS)
    assert response.status_code == 500
    assert "no reply scripted" in response.json()["error"]["message"]


CONTEXT = (
    "## 9. MEMORY CONTEXT\nWhat you remember that may bear on this turn:\n"
    "[id:aaaa1111] [episodic] (8 May 2023) Caroline: I went to the support group yesterday.\n"
    "[id:bbbb2222] [episodic] (9 May 2023) Melanie: I painted a sunrise over the lake.\n"
)


def _ask(base_url: str, system: str, question: str) -> str:
    body = {**BODY, "system": [{"type": "text", "text": system}], "messages": [{"role": "user", "content": question}]}
    response = httpx.post(f"{base_url}/v1/messages", json=body, headers=HEADERS)
    assert response.status_code == 200
    return str(response.json()["content"][0]["text"])


def test_the_responder_answers_when_the_queue_is_empty_and_queued_items_come_first(
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    fake_anthropic.respond_with(extractive_reply)
    fake_anthropic.enqueue(FakeReply.of_text("scripted"))
    assert _ask(fake_anthropic.base_url, CONTEXT, "What did Melanie paint?") == "scripted"
    answer = _ask(fake_anthropic.base_url, CONTEXT, "What did Melanie paint?")
    assert answer == "[episodic] (9 May 2023) Melanie: I painted a sunrise over the lake."
    assert _ask(fake_anthropic.base_url, CONTEXT, "Which zebra?") == "I don't know."
    fake_anthropic.reset()
    response = httpx.post(f"{fake_anthropic.base_url}/v1/messages", json=BODY, headers=HEADERS)
    assert response.status_code == 500, "reset forgets the responder"


@pytest.mark.parametrize(
    ("gold", "generated", "label"),
    [
        ("7 May 2023", "Caroline went on 7 May 2023.", "CORRECT"),
        ("a sunrise", "She painted a sunrise.", "CORRECT"),
        ("a sunrise", "She painted a horse.", "WRONG"),
        ("Adoption agencies", "I don't know.", "WRONG"),
    ],
)
def test_the_responder_grades_a_judge_prompt_by_the_gold_answer_words(gold: str, generated: str, label: str) -> None:
    prompt = "Question: x\nGold answer: an example\nGenerated answer: an example\n\nQuestion: When?\n"
    prompt += f"Gold answer: {gold}\nGenerated answer: {generated}\n"
    reply = extractive_reply({**BODY, "messages": [{"role": "user", "content": prompt}]})
    text = reply.content[0].text  # type: ignore[union-attr]
    assert json.loads(text.splitlines()[-1]) == {"label": label}
    assert reply.input_tokens > len(prompt) // 4 and reply.output_tokens > 0
