"""The model-start and pre-call events: each model call of a turn announced (opt-in) with
what is asked and how much goes out — sizes and a digest, never the prompt's text."""

from __future__ import annotations

import hashlib

from pydantic import JsonValue

from hippograph.agent import AgentConfig, AgentTool
from hippograph.agent.events import AGENT_EVENT_ADAPTER, ModelPreCall, ModelStart
from hippograph.app.api.schema.events import OtherEvent, to_graphql
from hippograph.llm import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent


async def _clock(args: dict[str, JsonValue]) -> str:
    return "09:30"


def _model() -> ScriptedModel:
    return ScriptedModel(
        [ScriptedReply(tool_calls=[ScriptedToolCall(name="clock", input={})]), ScriptedReply(text="It is 09:30.")]
    )


async def test_each_model_call_is_announced_before_it_starts(tenant: Scope, make_agent: MakeAgent) -> None:
    config = AgentConfig(model_call_events=True, model="claude-test", max_tokens=512)
    agent = make_agent(_model(), config, tools=[AgentTool.of("clock", "The time now.", _clock)])

    response = await agent.run(tenant, "What time is it? My secret word is pelican.")

    types = [e.type for e in response.events]
    firsts = [i for i, t in enumerate(types) if t == "model_start"]
    assert len(firsts) == 2 == response.model_calls
    for i in firsts:
        assert types[i : i + 3] == ["model_start", "model_pre_call", "message_start"]
    starts = [e for e in response.events if isinstance(e, ModelStart)]
    assert [(s.call, s.model, s.purpose, s.streamed) for s in starts] == [
        (1, "claude-test", "reply", True), (2, "claude-test", "reply", True),
    ]  # fmt: skip
    first, second = (e for e in response.events if isinstance(e, ModelPreCall))
    assert first.tools == ["clock"] and first.max_tokens == 512 and first.messages == 1
    assert second.messages == 3 and second.message_chars > first.message_chars
    system = agent.model.requests[0].system  # type: ignore[attr-defined]
    assert first.system_digest == hashlib.sha256(system.text.encode()).hexdigest() == second.system_digest
    assert first.system_chars == len(system.text) and first.estimated_input_tokens > first.system_chars // 4
    assert "pelican" not in first.model_dump_json()  # sizes, never the text
    assert AGENT_EVENT_ADAPTER.validate_json(first.model_dump_json()) == first
    graphql = to_graphql(first)  # the API streams it unchanged as an OtherEvent (no schema change)
    assert isinstance(graphql, OtherEvent) and graphql.type == "model_pre_call"


async def test_off_by_default_a_call_starts_with_message_start(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(_model(), tools=[AgentTool.of("clock", "The time now.", _clock)])
    response = await agent.run(tenant, "What time is it?")
    assert not any(isinstance(e, ModelStart | ModelPreCall) for e in response.events)
    types = [e.type for e in response.events]
    assert types[types.index("activation") + 1] == "message_start"
