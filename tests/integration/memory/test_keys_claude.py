"""The model-backed enricher on Claude, through the real ``anthropic`` SDK against the local fake
Messages API: its keys are written per turn and found by recall; a malformed reply or a failing
model raises a clear error and writes nothing."""

from __future__ import annotations

import pytest

from hippograph.memory import ConversationTurn, Memory
from hippograph.memory.enrich_model import EnrichmentError, claude_enricher
from hippograph.memory.ingest import turn_node_id
from hippograph.retrieval.config import RecallConfig
from hippograph.scope import Scope
from hippograph.testing.fake_anthropic import FakeAnthropic, FakeError, FakeReply, FakeText, FakeToolUse
from tests.integration.memory.helpers import run_file
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401
from tests.support.memory_internals import internals

DAY = 1_683_504_000.0  # 8 May 2023


def turns() -> list[ConversationTurn]:
    said = [("Ana", "We finally signed the papers for the little one"), ("Ben", "Wow, congratulations!")]
    return [
        ConversationTurn(turn_id=f"D1:{i}", session_id="s1", speaker=s, text=t, occurred_at=DAY + i)
        for i, (s, t) in enumerate(said)
    ]


def _claude(fake: FakeAnthropic) -> object:
    return claude_enricher(api_key="test-key", base_url=fake.base_url, model="claude-test", max_retries=0)


async def keys_under(memory: Memory, scope: Scope) -> list[dict[str, object]]:
    return await run_file(internals(memory).store.conn, "get_keys_under", prefix=scope.key)


async def test_claudes_keys_are_written_per_turn_and_found(
    memory: Memory,
    tenant: Scope,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    home = tenant.child("user", "ana")
    answer = {
        "turns": [
            {
                "turn": 1,
                "facts": ["Ana adopted a child"],
                "keyphrases": ["adoption papers"],
                "dates": ["8 May 2023"],
                "questions": ["Did Ana adopt a child?"],
                "about_person": ["Ana is a parent"],
            },
            {"turn": 2, "facts": [], "keyphrases": []},
        ]
    }
    fake_anthropic.enqueue(FakeReply([FakeToolUse("record_keys", answer)]))

    await memory.ingest(home, turns(), enricher=_claude(fake_anthropic))  # type: ignore[arg-type]

    [request] = fake_anthropic.requests
    assert [t["name"] for t in request.body["tools"]] == ["record_keys"] and request.body["model"] == "claude-test"
    sent = request.body["messages"][0]["content"]
    sent = sent if isinstance(sent, str) else sent[0]["text"]
    assert sent.startswith('1. [Ana, session of 08 May 2023] "We finally signed') and "\n2. [Ben," in sent
    written = {(r["memory_id"], r["k"]["kind"], r["k"]["text"]) for r in await keys_under(memory, home)}  # type: ignore[index]
    first = turn_node_id(home, "D1:0")
    assert written == {
        (first, "fact", "Ana adopted a child"),
        (first, "keyphrase", "adoption papers"),
        (first, "date", "8 May 2023"),
        (first, "question", "Did Ana adopt a child?"),
        (first, "person", "Ana is a parent"),
    }
    found = await memory.recall(home, "adopted child", config=RecallConfig(track_access=False), now=DAY + 86_400)
    assert found.items[0].node.id == first and found.items[0].parts.key is not None


@pytest.mark.parametrize(
    "reply",
    [
        FakeReply.of_text("Here are the keys: adoption, papers"),
        FakeReply([FakeToolUse("record_keys", {"turns": [{"turn": 1, "facts": "not a list"}]})]),
        FakeReply([FakeToolUse("record_keys", {"turns": [{"turn": 3, "facts": ["a turn that is not there"]}]})]),
        FakeReply([FakeToolUse("record_keys", {"turns": [{"turn": 1, "facts": ["ok"], "mood": ["extra"]}]})]),
        FakeReply([FakeText("thinking aloud"), FakeToolUse("record_keys", {"keys": []})]),
        FakeError.invalid_request("max_tokens: too large"),
    ],
    ids=["no-tool-call", "wrong-type", "turn-out-of-batch", "unknown-field", "no-turns", "api-error"],
)
async def test_a_malformed_reply_raises_and_writes_nothing(
    memory: Memory,
    tenant: Scope,
    fake_anthropic: FakeAnthropic,  # noqa: F811
    reply: object,
) -> None:
    home = tenant.child("user", "ana")
    await memory.ingest(home, turns())
    fake_anthropic.enqueue(reply)  # type: ignore[arg-type]

    with pytest.raises(EnrichmentError) as raised:
        await memory.enrich(home, _claude(fake_anthropic))  # type: ignore[arg-type]

    assert "record_keys" in str(raised.value) or "failed" in str(raised.value)
    assert await keys_under(memory, home) == []
