"""Full turns through the real ``anthropic`` SDK against the local fake Messages API (real
JSON and SSE wire format) and real Neo4j: streamed and not, JIT mode with the model calling
``hydrate_context``, extended thinking carried through the tool loop, usage summed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from hippograph.agent import AgentConfig, RecordingHooks
from hippograph.agent.events import (
    Activation,
    MessageEnd,
    StageFailed,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolResult,
)
from hippograph.llm import AnthropicModel, ModelError, TokenUsage
from hippograph.llm.retry import Backoff
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from hippograph.testing.fake_anthropic import (
    FakeAnthropic,
    FakeError,
    FakeReply,
    FakeText,
    FakeThinking,
    FakeToolUse,
)
from tests.integration.agent.conftest import MakeAgent
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401
from tests.support.memory_internals import internals

BLOCK = (
    '<MEMORY_EXTRACT>{"ops": [{"op": "upsert_node", "label": "dog walker", '
    '"content": "Sam walks Rex on Tuesdays"}]}</MEMORY_EXTRACT>'
)


@pytest.fixture
async def claude(fake_anthropic: FakeAnthropic) -> AsyncIterator[AnthropicModel]:  # noqa: F811
    model = AnthropicModel(
        api_key="sk-test", base_url=fake_anthropic.base_url, model="claude-test",
        max_retries=2, backoff=Backoff(base=0.01, cap=0.02),
    )  # fmt: skip
    yield model
    await model.aclose()


def _jit_replies() -> list[FakeReply]:
    return [
        FakeReply(
            content=[
                FakeThinking("The user asks about the dog; recall first.", signature="sig-1"),
                FakeToolUse("hydrate_context", {"query": "user's dog"}, id="toolu_01"),
            ],
            input_tokens=100, output_tokens=20, cache_read_input_tokens=50,
        ),
        FakeReply(
            content=[
                FakeThinking("Memory says Rex.", signature="sig-2"),
                FakeText("Your dog is Rex, and Sam walks him on Tuesdays.\n" + BLOCK),
            ],
            input_tokens=200, output_tokens=30, cache_read_input_tokens=50,
        ),
    ]  # fmt: skip


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "complete"])
async def test_jit_turn_with_thinking_and_hydrate_context(
    streamed: bool,
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    fact = await memory.remember(tenant, "user's dog", "The user's dog is called Rex.")
    fake_anthropic.enqueue(*_jit_replies())
    hooks = RecordingHooks()
    config = AgentConfig(prompt_mode="jit", thinking_budget=2048, max_tokens=4096, stream_model=streamed)
    agent = make_agent(claude, config, hooks=[hooks])

    events = [e async for e in agent.stream(tenant, "Who walks my dog, and what's its name?")]

    types = [e.type for e in events]
    assert types.count("message_start") == 2 and types[-1] == "message_end"
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [("toolu_01", "hydrate_context")]
    [activation] = [e for e in events if isinstance(e, Activation)]
    assert fact.id in [n.id for n in activation.nodes]
    [result] = [e for e in events if isinstance(e, ToolResult)]
    assert result.tool_use_id == "toolu_01" and not result.is_error
    assert "The user's dog is called Rex." in result.content
    assert types.index("tool_result") < types.index("message_start", types.index("tool_result"))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "Your dog is Rex, and Sam walks him on Tuesdays."
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    assert thinking == "The user asks about the dog; recall first.Memory says Rex."
    assert [e.type for e in events[-3:]] == [
        "memory_extracted",
        "consolidation_scheduled",
        "message_end",
    ]
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "end_turn"

    first, second = fake_anthropic.requests
    assert first.stream is streamed and second.stream is streamed
    assert [t["name"] for t in first.body["tools"]] == ["hydrate_context"]
    assert first.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    system = first.body["system"]
    assert len(system) == 1 and "hydrate_context" in system[0]["text"]
    assert system[0]["cache_control"] == {"type": "ephemeral"}
    assistant, tool_turn = second.body["messages"][-2:]
    assert [b["type"] for b in assistant["content"]] == ["thinking", "tool_use"]
    assert assistant["content"][0]["signature"] == "sig-1"
    assert tool_turn["content"][0]["type"] == "tool_result"
    assert "Rex" in tool_turn["content"][0]["content"]

    usages = [u for u in hooks.usages]
    assert usages == [
        TokenUsage(input_tokens=100, output_tokens=20, cache_read_input_tokens=50),
        TokenUsage(input_tokens=200, output_tokens=30, cache_read_input_tokens=50),
    ]
    stages = {name for name, _ in hooks.stages}
    assert {"session", "triage", "prompt", "model", "tools", "extraction", "schedule"} <= stages

    [report] = await agent.drain()
    assert report.errors == []
    stored = await internals(memory).store.query_subtree(tenant)
    assert any(n.layer is Layer.SEMANTIC and n.label == "dog walker" for n in stored)
    thoughts = [n for n in stored if n.layer is Layer.WORKING and n.properties["kind"] == "thinking"]
    assert [t.content for t in thoughts] == ["The user asks about the dog; recall first.Memory says Rex."]


async def test_run_sums_usage_and_reports_timings(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    await memory.remember(tenant, "user's dog", "The user's dog is called Rex.")
    fake_anthropic.enqueue(*_jit_replies())
    agent = make_agent(claude, AgentConfig(prompt_mode="jit", thinking_budget=1024))
    response = await agent.run(tenant, "What's my dog's name?")
    assert response.text == "Your dog is Rex, and Sam walks him on Tuesdays."
    assert response.usage == TokenUsage(input_tokens=300, output_tokens=50, cache_read_input_tokens=100)
    assert response.model_calls == 2 and response.model == "claude-test"
    assert response.stop_reason == "end_turn"
    assert response.memory is not None and len(response.memory.ops) == 1
    stages = response.timings.stages
    assert {"triage", "prompt", "model", "tools", "extraction", "schedule"} <= set(stages)
    assert response.timings.overhead_ms <= response.timings.total_ms
    assert response.timings.model_ms == stages["model"] > 0


async def test_full_prompt_carries_memory_after_the_cache_breakpoint(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    await memory.remember(tenant, "user's dog", "The user's dog is called Rex.")
    fake_anthropic.enqueue(FakeError.overloaded(), FakeReply.of_text("It is Rex."))
    agent = make_agent(claude)
    response = await agent.run(tenant, "What is my dog called?")
    assert response.text == "It is Rex." and response.errors == []
    retried, sent = fake_anthropic.requests
    assert retried.body == sent.body
    instructions, context = sent.body["system"]
    assert instructions["cache_control"] == {"type": "ephemeral"}
    assert "## 9. MEMORY CONTEXT" in context["text"] and "Rex" in context["text"]
    assert "cache_control" not in context
    assert "tools" not in sent.body
    assert sent.body["messages"] == [{"role": "user", "content": "What is my dog called?"}]


async def test_a_failing_model_ends_the_turn_with_an_error_and_stores_nothing(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    fake_anthropic.enqueue(FakeError.invalid_request("messages: bad"))
    agent = make_agent(claude)
    events = [e async for e in agent.stream(tenant, "Hello?")]
    error = next(e for e in events if isinstance(e, StageFailed))
    assert error.stage == "model" and not error.recoverable
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "error"
    fake_anthropic.enqueue(FakeError.invalid_request("messages: bad"))
    with pytest.raises(ModelError):
        await agent.run(tenant, "Hello again?")
    assert await agent.drain() == []
    assert await internals(memory).store.query_subtree(tenant) == []


async def test_llm_summaries_of_a_long_session_go_through_claude(
    tenant: Scope,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    config = AgentConfig.model_validate({"sessions": {"history_turns": 1, "compaction": "llm"}})
    agent = make_agent(claude, config)
    fake_anthropic.enqueue(FakeReply.of_text("First answer."), FakeReply.of_text("Second answer."))
    first = await agent.run(tenant, "We plan a trip to Lisbon in May.")
    await agent.run(tenant, "Book the hotel near the river.", session_id=first.session_id)
    fake_anthropic.enqueue(
        FakeReply.of_text("The user plans a May trip to Lisbon."),  # the compaction's call
        FakeReply.of_text("Third answer."),
    )
    await agent.run(tenant, "And the flights?", session_id=first.session_id)
    requests = fake_anthropic.requests
    summary_call, turn_call = requests[2].body, requests[3].body
    assert "You compress" in str(summary_call["system"])
    assert "We plan a trip to Lisbon in May." in str(summary_call["messages"])
    assert "Summary of the turns before these messages: The user plans a May trip to Lisbon." in str(
        turn_call["system"]
    )
    assert [m["role"] for m in turn_call["messages"]] == ["user", "assistant", "user"]
