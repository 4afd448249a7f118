"""An agent turn over real Neo4j as spans: the turn, its stages, the recall inside the hydrate
stage, GenAI ``chat`` spans for the model calls (through the real ``anthropic`` SDK against
the fake Messages API, and through the scripted model) and an ``execute_tool`` span per tool
call; the background consolidation of the turn as its own span."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from pydantic import JsonValue

from hippograph.agent import AgentConfig, AgentTool
from hippograph.llm import AnthropicModel, ModelError, ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.llm.retry import Backoff
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.testing.fake_anthropic import FakeAnthropic, FakeError, FakeReply
from hippograph.tracing import SCOPE_KEY
from tests.integration.agent.conftest import MakeAgent
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401
from tests.support.spans import children, named, one


@pytest.fixture
async def claude(fake_anthropic: FakeAnthropic) -> AsyncIterator[AnthropicModel]:  # noqa: F811
    model = AnthropicModel(
        api_key="sk-test", base_url=fake_anthropic.base_url, model="claude-test",
        max_retries=1, backoff=Backoff(base=0.01, cap=0.02),
    )  # fmt: skip
    yield model
    await model.aclose()


async def test_a_turn_on_claude_is_a_trace_with_genai_spans(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
    spans: InMemorySpanExporter,
) -> None:
    await memory.remember(tenant, "user's dog", "The user's dog is called Rex.")
    fake_anthropic.enqueue(FakeReply.of_text("It is Rex."))
    agent = make_agent(claude)
    response = await agent.run(tenant, "What is my dog called?")
    await agent.drain()
    assert response.text == "It is Rex."

    finished = spans.get_finished_spans()
    turn = one(finished, "hippograph.agent.turn")
    assert turn.parent is None and turn.attributes is not None
    assert turn.attributes[SCOPE_KEY] == tenant.key
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.attributes["gen_ai.conversation.id"] == response.session_id
    assert turn.attributes["gen_ai.usage.output_tokens"] == response.usage.output_tokens > 0
    stages = [s.name for s in children(finished, turn)]
    for stage in ("session", "triage", "hydrate", "prompt", "extraction", "schedule"):
        assert f"hippograph.agent.{stage}" in stages
    assert (
        stages.index("hippograph.agent.hydrate")
        < stages.index("chat claude-test")
        < stages.index("hippograph.agent.schedule")
    )

    hydrate = one(finished, "hippograph.agent.hydrate")
    recall = one(finished, "hippograph.recall")
    assert recall.parent is not None and hydrate.context is not None
    assert recall.parent.span_id == hydrate.context.span_id
    assert recall.attributes is not None and recall.attributes["hippograph.recall.hits"] >= 1

    chat = one(finished, "chat claude-test")
    assert chat.kind is SpanKind.CLIENT and chat.attributes is not None
    assert chat.attributes["gen_ai.system"] == "anthropic"
    assert chat.attributes["gen_ai.request.model"] == "claude-test"
    assert chat.attributes["gen_ai.response.model"] == "claude-test"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("end_turn",)
    assert chat.attributes["gen_ai.usage.input_tokens"] == response.usage.total_input_tokens > 0
    assert chat.attributes["gen_ai.usage.output_tokens"] == response.usage.output_tokens
    assert "Rex" not in str([dict(s.attributes or {}) for s in finished])  # no text in any span

    background = one(finished, "hippograph.agent.consolidate")
    assert background.attributes is not None and background.attributes[SCOPE_KEY] == tenant.key
    assert background.attributes["hippograph.telemetry.turn.model_calls"] == 1
    assert background.attributes["hippograph.telemetry.session_id"] == response.session_id


async def test_a_failed_model_call_fails_the_turn_span(
    tenant: Scope,
    make_agent: MakeAgent,
    claude: AnthropicModel,
    fake_anthropic: FakeAnthropic,  # noqa: F811
    spans: InMemorySpanExporter,
) -> None:
    fake_anthropic.enqueue(FakeError.invalid_request("messages: bad"))
    agent = make_agent(claude)
    with pytest.raises(ModelError):
        await agent.run(tenant, "Hello")
    finished = spans.get_finished_spans()
    assert one(finished, "chat claude-test").status.status_code is StatusCode.ERROR
    assert one(finished, "hippograph.agent.turn").status.status_code is StatusCode.ERROR


async def _book(args: dict[str, JsonValue]) -> str:
    return "booked for Tuesday"


async def test_a_scripted_turn_with_a_tool(tenant: Scope, make_agent: MakeAgent, spans: InMemorySpanExporter) -> None:
    model = ScriptedModel([ScriptedReply(tool_calls=[ScriptedToolCall(name="book", id="t1")]), "Booked."])
    agent = make_agent(model, AgentConfig(model="claude-scripted"), tools=[AgentTool.of("book", "Book.", _book)])
    await agent.run(tenant, "Book my dentist")
    finished = spans.get_finished_spans()
    turn = one(finished, "hippograph.agent.turn")
    calls = named(finished, "chat claude-scripted")
    assert len(calls) == 2 and all(c.parent is not None and c.parent.span_id == turn.context.span_id for c in calls)
    tools = one(finished, "hippograph.agent.tools")
    call = one(finished, "execute_tool book")
    assert call.parent is not None and tools.context is not None and call.parent.span_id == tools.context.span_id
