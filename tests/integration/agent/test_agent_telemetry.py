"""The optional telemetry sink: off by default; given a JSON-lines sink, one line per turn
after its consolidation — numbers and names, never the text; a failing sink breaks nothing."""

from __future__ import annotations

import json
from pathlib import Path

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import JsonValue

from hippograph.agent import AgentConfig, AgentTool, JsonLinesTelemetry, TurnSummary
from hippograph.llm import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent

OP = '{"op": "upsert_node", "label": "Ana\'s dentist", "content": "Dr Sousa"}'
REPLY = f'Booked. <MEMORY_EXTRACT>{{"ops": [{OP}]}}</MEMORY_EXTRACT>'


async def _book(args: dict[str, JsonValue]) -> str:
    return "booked for Tuesday"


def _model() -> ScriptedModel:
    return ScriptedModel([ScriptedReply(tool_calls=[ScriptedToolCall(name="book", input={"who": "Dr Sousa"})]), REPLY])


async def test_a_json_lines_sink_gets_one_summary_per_turn(
    tenant: Scope, make_agent: MakeAgent, tmp_path: Path
) -> None:
    path = tmp_path / "telemetry" / "turns.jsonl"
    agent = make_agent(_model(), AgentConfig(), tools=[AgentTool.of("book", "Book an appointment.", _book)],
                       telemetry=JsonLinesTelemetry(path))  # fmt: skip

    response = await agent.run(tenant, "Book my dentist, Dr Sousa, my PIN is 4471.")
    [report] = await agent.drain()

    [line] = path.read_text().splitlines()
    summary = TurnSummary.model_validate_json(line)
    assert summary.scope_key == tenant.key and summary.session_id == response.session_id
    assert summary.turn_event_id == report.turn_event_id and summary.action_event_id is not None
    assert summary.turn.model_calls == 2 and summary.turn.tools == ["book"] and summary.turn.ops == 1
    assert summary.applied_ops == 1 and summary.failed_ops == 0 and summary.background_failures == []
    assert summary.turn.usage.output_tokens == response.usage.output_tokens > 0
    assert summary.turn.message_chars == len("Book my dentist, Dr Sousa, my PIN is 4471.")
    assert "model" in summary.turn.stages_ms and summary.background_ms > 0
    assert "4471" not in line and "Sousa" not in line and "Booked" not in line  # no text leaves
    assert set(json.loads(line)) >= {"at", "scope_key", "turn", "applied_ops"}


class Broken:
    async def record(self, summary: TurnSummary) -> None:
        raise OSError("disk full")


async def test_a_failing_sink_breaks_nothing(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedModel(["Hello!"]), telemetry=Broken())
    response = await agent.run(tenant, "Hi")
    [report] = await agent.drain()
    assert response.text == "Hello!" and report.errors == [] and report.turn_event_id is not None


async def test_the_span_exporter_writes_the_sinks_lines_from_the_turns_spans(
    tenant: Scope, make_agent: MakeAgent, tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    sunk = tmp_path / "sink.jsonl"
    agent = make_agent(_model(), AgentConfig(), tools=[AgentTool.of("book", "Book an appointment.", _book)],
                       telemetry=JsonLinesTelemetry(sunk))  # fmt: skip
    await agent.run(tenant, "Book my dentist, Dr Sousa, my PIN is 4471.")
    await agent.drain()

    exported = tmp_path / "spans.jsonl"
    JsonLinesTelemetry(exported).span_exporter().export(spans.get_finished_spans())
    assert exported.read_text() == sunk.read_text() != ""
