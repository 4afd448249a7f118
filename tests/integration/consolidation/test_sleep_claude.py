"""Model-backed consolidation on Claude: the summariser (phase 10) and the merge judge
(phase 13) through the real ``anthropic`` SDK against the local fake Messages API, and the
fallbacks when the model fails or answers in the wrong shape."""

from __future__ import annotations

import random

import pytest

from hippograph.consolidation import ConsolidationModelError, Phase, claude_consolidation
from hippograph.models import Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore
from hippograph.testing.fake_anthropic import FakeAnthropic, FakeError, FakeReply, FakeText, FakeToolUse
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import DAY, MINUTE, NOW, edge, event, fact, near, unit_vector


def _claude(fake: FakeAnthropic) -> object:
    return claude_consolidation(api_key="test-key", base_url=fake.base_url, model="claude-test", max_retries=0)


async def _crowded(store: GraphStore, scope: Scope, n: int = 110) -> None:
    events = [
        event(f"turn {i:03d}", at=NOW - 60 * DAY + i * MINUTE, content=f"Ana said thing {i}. End {i}.")
        for i in range(n)
    ]
    await store.add_nodes(scope, events)
    await store.upsert_edges(scope, [edge(events[i], events[i + 1], Relationship.NEXT) for i in range(n - 1)])


async def test_claude_writes_the_episode_summary(
    store: GraphStore, tenant: Scope, make: Make, fake_anthropic: FakeAnthropic
) -> None:
    home = tenant.child("user", "ana")
    await _crowded(store, home)
    summary = "Ana talked about things 0 to 49 between March and April."
    fake_anthropic.enqueue(FakeReply([FakeToolUse("record_summary", {"summary": summary})]))

    report = await make(model=_claude(fake_anthropic)).run(home, only=[Phase.EPISODIC_SUMMARY])

    counts = report.phase(Phase.EPISODIC_SUMMARY).counts  # type: ignore[union-attr]
    assert counts["summaries"] == 1 and counts["model_written"] == 1 and "model_failed" not in counts
    [request] = fake_anthropic.requests
    body = request.body
    assert body["model"] == "claude-test" and [t["name"] for t in body["tools"]] == ["record_summary"]
    sent = body["messages"][0]["content"]
    sent = sent if isinstance(sent, str) else sent[0]["text"]
    assert sent.startswith("1. Ana said thing 0.") and "50. Ana said thing 49." in sent
    found = await store.query_subtree(home, {"label": "META:episodic_summary"}, limit=None)
    [node] = [n for n in found if n.label == "META:episodic_summary"]
    assert node.content == summary and node.properties["method"] == "model"


@pytest.mark.parametrize(
    "reply",
    [FakeError.invalid_request("max_tokens: too large"), FakeReply.of_text("Sure, here is a summary!")],
    ids=["api-error", "wrong-shape"],
)
async def test_a_failing_summariser_falls_back_to_the_extractive_summary(
    store: GraphStore, tenant: Scope, make: Make, fake_anthropic: FakeAnthropic, reply: object
) -> None:
    home = tenant.child("user", "ana")
    await _crowded(store, home)
    fake_anthropic.enqueue(reply)  # type: ignore[arg-type]

    report = await make(model=_claude(fake_anthropic)).run(home, only=[Phase.EPISODIC_SUMMARY])

    counts = report.phase(Phase.EPISODIC_SUMMARY).counts  # type: ignore[union-attr]
    assert counts["summaries"] == 1 and counts["model_failed"] == 1 and "model_written" not in counts
    found = await store.query_subtree(home, {"label": "META:episodic_summary"}, limit=None)
    [node] = [n for n in found if n.label == "META:episodic_summary"]
    assert node.properties["method"] == "extractive" and node.content.startswith("Summary of 50 earlier episodes:")


async def test_claude_judges_merges_and_a_failure_keeps_facts_apart(
    store: GraphStore, tenant: Scope, make: Make, fake_anthropic: FakeAnthropic
) -> None:
    rng = random.Random(7)
    coffee, tea = unit_vector(rng), unit_vector(rng)
    await store.add_nodes(
        tenant,
        [
            fact("likes coffee", content="Ana likes coffee.", embedding=coffee),
            fact("likes coffee a lot", content="Ana likes coffee a lot.", embedding=near(coffee, rng, 0.05)),
            fact("drinks tea", content="Ana drinks tea at 5.", embedding=tea, at=NOW - DAY + 1),
            fact(
                "drinks tea daily",
                content="Ana drinks tea at 5 daily.",
                embedding=near(tea, rng, 0.05),
                at=NOW - DAY + 2,
            ),
        ],
    )
    fake_anthropic.enqueue(
        FakeReply([FakeText("Checking."), FakeToolUse("merge_verdict", {"same_fact": True, "reason": "same"})]),
        FakeError.overloaded(),
    )
    model = claude_consolidation(api_key="test-key", base_url=fake_anthropic.base_url, max_retries=0)

    report = await make(model=model).run(tenant, only=[Phase.SEMANTIC_MERGE])

    counts = report.phase(Phase.SEMANTIC_MERGE).counts  # type: ignore[union-attr]
    assert counts["merged"] == 1 and counts["model_failed"] == 1 and counts["judged_apart"] == 0
    asked = [r.body["messages"][0]["content"] for r in fake_anthropic.requests]
    assert len(asked) == 2 and all("Fact A:" in str(a) and "Fact B:" in str(a) for a in asked)
    facts = await store.query_subtree(tenant, {"include_retracted": True}, limit=None)
    assert sum(1 for f in facts if f.retracted) == 1


async def test_the_judge_reads_a_json_answer_and_refuses_a_non_boolean(fake_anthropic: FakeAnthropic) -> None:
    judge = claude_consolidation(api_key="test-key", base_url=fake_anthropic.base_url)
    fake_anthropic.enqueue(
        FakeReply.of_text('They differ: {"same_fact": false, "reason": "different times"}'),
        FakeReply([FakeToolUse("merge_verdict", {"same_fact": "maybe"})]),
    )
    assert await judge.same_fact("Ana drinks tea at 5.", "Ana drinks tea at 6.") is False
    assert judge.last_reason == "different times"
    with pytest.raises(ConsolidationModelError, match="boolean same_fact"):
        await judge.same_fact("a", "b")
