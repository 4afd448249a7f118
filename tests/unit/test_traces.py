"""Spans without a database: the span helpers, the agent's model loop (GenAI spans over the
scripted model, tool calls, stage spans), the API's request and GraphQL operation spans and
the MCP tools' spans, read through the SDK's in-memory exporter."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import strawberry
from fastapi import FastAPI
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from hippograph.agent.config import AgentConfig
from hippograph.agent.model_loop import Draft, ModelCaller, run_model_loop
from hippograph.agent.observability import HookSet, StageClock
from hippograph.agent.stages import Out
from hippograph.agent.telemetry import JsonLinesTelemetry, summary_attributes, summary_from_attributes
from hippograph.agent.tools import AgentTool
from hippograph.agent.turn_summary import TurnStats, TurnSummary
from hippograph.app.api.traces import GraphQLSpans
from hippograph.llm.scripted import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.llm.spans import complete
from hippograph.llm.types import ChatMessage, ModelRequest, SystemPrompt, TokenUsage
from hippograph.tracing import in_span, span, tracer
from tests.support.spans import children, named, one


async def test_in_span_is_current_only_while_the_steps_run(spans: InMemorySpanExporter) -> None:
    seen_inside: list[int] = []

    async def steps() -> AsyncIterator[int]:
        for i in range(3):
            seen_inside.append(trace.get_current_span().get_span_context().span_id)
            with span("step"):
                pass
            yield i

    outer = tracer().start_span("outer")
    seen_outside = []
    async for _ in in_span(outer, steps()):
        seen_outside.append(trace.get_current_span().get_span_context().span_id)
    outer.end()

    mine = outer.get_span_context().span_id
    assert seen_inside == [mine] * 3
    assert mine not in seen_outside
    finished = spans.get_finished_spans()
    assert [s.parent.span_id for s in named(finished, "step") if s.parent] == [mine] * 3


async def test_in_span_records_a_failure_of_the_steps(spans: InMemorySpanExporter) -> None:
    async def steps() -> AsyncIterator[int]:
        yield 1
        raise RuntimeError("boom")

    outer = tracer().start_span("outer")
    with pytest.raises(RuntimeError):
        async for _ in in_span(outer, steps()):
            pass
    outer.end()
    done = one(spans.get_finished_spans(), "outer")
    assert done.status.status_code is StatusCode.ERROR
    assert [e.name for e in done.events] == ["exception"]


async def test_model_loop_makes_genai_chat_and_tool_spans(spans: InMemorySpanExporter) -> None:
    async def weather(args: dict[str, object]) -> dict[str, object]:
        return {"forecast": "sunny"}

    usage = TokenUsage(input_tokens=30, output_tokens=7, cache_read_input_tokens=5)
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[ScriptedToolCall(name="get_weather", input={"city": "Oslo"}, id="t1")]),
            ScriptedReply(text="Sunny in Oslo.", usage=usage),
        ],
        model="claude-test",
    )
    config = AgentConfig(model="claude-test")
    clock = StageClock(HookSet(()))
    caller = ModelCaller(model, config, SystemPrompt(text="be brief"), [], clock)
    out = Out[Draft]()
    tool = AgentTool.of("get_weather", "Today's forecast.", weather)
    messages = [ChatMessage(role="user", content="Weather in Oslo?")]
    async for _ in run_model_loop(
        caller, messages, hold=False, tools={"get_weather": tool}, config=config, hydrate_tool=None,
        memory_texts=(), clock=clock, out=out,
    ):  # fmt: skip
        pass

    finished = spans.get_finished_spans()
    calls = named(finished, "chat claude-test")
    assert len(calls) == 2
    assert all(c.kind is SpanKind.CLIENT for c in calls)
    first, second = calls
    assert first.attributes is not None and second.attributes is not None
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.system"] == "anthropic"
    assert first.attributes["gen_ai.request.model"] == "claude-test"
    assert first.attributes["gen_ai.request.max_tokens"] == config.max_tokens
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert second.attributes["gen_ai.response.finish_reasons"] == ("end_turn",)
    assert second.attributes["gen_ai.response.model"] == "claude-test"
    assert second.attributes["gen_ai.usage.input_tokens"] == 35  # cached tokens count as input too
    assert second.attributes["gen_ai.usage.output_tokens"] == 7
    assert second.attributes["gen_ai.usage.cache_read.input_tokens"] == 5

    stage = one(finished, "hippograph.agent.tools")
    call = one(finished, "execute_tool get_weather")
    assert call.attributes is not None
    assert call.attributes["gen_ai.tool.name"] == "get_weather"
    assert call.attributes["gen_ai.tool.call.id"] == "t1"
    assert children(finished, stage) == [call]
    assert call.status.status_code is StatusCode.UNSET


async def test_a_failing_model_call_is_an_error_span(spans: InMemorySpanExporter) -> None:
    model = ScriptedModel([], model="claude-test")  # no reply left: the call fails
    config = AgentConfig(model="claude-test")
    caller = ModelCaller(model, config, SystemPrompt(text="x"), [], StageClock(HookSet(())))
    out = Out[Draft]()
    with pytest.raises(Exception, match="model"):
        async for _ in run_model_loop(
            caller, [ChatMessage(role="user", content="hi")], hold=False, tools={}, config=config,
            hydrate_tool=None, memory_texts=(), clock=StageClock(HookSet(())), out=out,
        ):  # fmt: skip
            pass
    call = one(spans.get_finished_spans(), "chat claude-test")
    assert call.status.status_code is StatusCode.ERROR


@strawberry.type
class _Query:
    @strawberry.field
    def hello(self) -> str:
        with span("resolver-work"):
            return "hi"


async def test_a_graphql_operation_is_a_span_in_the_request_trace(spans: InMemorySpanExporter) -> None:
    from strawberry.fastapi import GraphQLRouter

    app = FastAPI()
    app.include_router(GraphQLRouter(strawberry.Schema(query=_Query, extensions=[GraphQLSpans])), prefix="/graphql")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        answer = await client.post("/graphql", json={"query": "query Greeting { hello }"})
    assert answer.status_code == 200

    finished = spans.get_finished_spans()
    request = one(finished, "POST /graphql")
    assert request.kind is SpanKind.SERVER
    assert request.attributes is not None
    assert request.attributes["http.route"] == "/graphql"
    assert request.attributes["http.response.status_code"] == 200
    operation = one(finished, "graphql query Greeting")
    assert operation.attributes is not None
    assert operation.attributes["graphql.operation.name"] == "Greeting"
    assert operation.attributes["graphql.operation.type"] == "query"
    assert operation.context is not None and request.context is not None
    assert operation.context.trace_id == request.context.trace_id  # inside the request's trace
    work = one(finished, "resolver-work")
    assert work.parent is not None and operation.context is not None
    assert work.parent.span_id == operation.context.span_id
    assert "query Greeting { hello }" not in str(operation.attributes)  # never the document


def test_an_mcp_tool_call_is_an_execute_tool_span(spans: InMemorySpanExporter) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from hippograph.app.mcp.tools import tool_errors
    from hippograph.errors import InvalidInputError

    with tool_errors("recall"):
        pass
    with pytest.raises(ToolError), tool_errors("remember"):
        raise InvalidInputError("text", "empty")

    finished = spans.get_finished_spans()
    ok, failed = one(finished, "execute_tool recall"), one(finished, "execute_tool remember")
    assert ok.attributes is not None and ok.attributes["gen_ai.tool.name"] == "recall"
    assert ok.attributes["mcp.method.name"] == "tools/call"
    assert ok.status.status_code is StatusCode.UNSET
    assert failed.status.status_code is StatusCode.ERROR


def _summary() -> TurnSummary:
    stats = TurnStats(
        model="claude-test", stop_reason="end_turn", model_calls=2,
        usage=TokenUsage(input_tokens=10, output_tokens=4, cache_read_input_tokens=3),
        stages_ms={"model": 12.5, "hydrate": 3.25}, tools=["book"], message_chars=40, reply_chars=7, ops=1,
    )  # fmt: skip
    return TurnSummary(
        scope_key="org:acme", session_id="s1", task_id="t1", turn=stats, turn_event_id="e1",
        applied_ops=1, background_ms=8.5, background_failures=["scrub"],
    )  # fmt: skip


def test_a_turn_summary_survives_span_attributes() -> None:
    summary = _summary()
    attributes = summary_attributes(summary)
    assert attributes["hippograph.telemetry.turn.usage.output_tokens"] == 4
    assert attributes["hippograph.telemetry.turn.stages_ms.model"] == 12.5
    assert "hippograph.telemetry.action_event_id" not in attributes  # unset: left out
    assert summary_from_attributes(attributes) == summary
    assert summary_from_attributes({"http.route": "/graphql"}) is None


def test_the_json_lines_exporter_writes_the_sinks_line(tmp_path: Path) -> None:
    path = tmp_path / "telemetry" / "turns.jsonl"
    sink = JsonLinesTelemetry(path)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(sink.span_exporter()))
    own = provider.get_tracer("test")
    summary = _summary()
    with own.start_as_current_span("hippograph.agent.consolidate", attributes=summary_attributes(summary)):
        own.start_span("hippograph.commit").end()
    provider.shutdown()

    [line] = path.read_text().splitlines()  # the span without a summary wrote nothing
    assert line == summary.model_dump_json()
    asyncio.run(sink.record(summary))
    first, second = path.read_text().splitlines()
    assert first == second  # the sink and the exporter write the same line


async def test_a_call_outside_a_turn_is_a_chat_span_named_by_the_reply(spans: InMemorySpanExporter) -> None:
    request = ModelRequest(system=SystemPrompt(text="summarise"), messages=[ChatMessage(role="user", content="x")])
    response = await complete(ScriptedModel(["A summary."]), request, purpose="summary")
    call = one(spans.get_finished_spans(), f"chat {response.model}")  # no model asked for: the reply's
    assert call.attributes is not None
    assert "gen_ai.request.model" not in call.attributes
    assert call.attributes["hippograph.model.purpose"] == "summary"
    assert call.attributes["gen_ai.response.model"] == response.model
    assert call.attributes["gen_ai.usage.output_tokens"] == response.usage.output_tokens > 0
