"""The stages one by one: triage (observe / enforce, tool routing), user tools and the tool
loop (errors, timeouts, the round cap), the fabrication check (observe / revise / refuse)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import JsonValue

from hippograph.agent import AgentConfig, AgentTool
from hippograph.agent.events import (
    FabricationDetected,
    IntentClassified,
    StageFailed,
    TextDelta,
    ToolRoutingDecision,
)
from hippograph.agent.findings import DEFAULT_SAFE_REPLY
from hippograph.errors import InvalidInputError
from hippograph.llm import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals

FABRICATED = "Done: I deployed the service, build id=4f3a9c2e1b77."


async def _weather(args: dict[str, JsonValue]) -> dict[str, Any]:
    return {"city": args.get("city"), "forecast": "sunny"}


async def _broken(args: dict[str, JsonValue]) -> str:
    raise RuntimeError("backend down")


async def _slow(args: dict[str, JsonValue]) -> str:
    await asyncio.sleep(5)
    return "late"


TOOLS = [
    AgentTool.of("get_weather", "Look up the weather forecast for a city.", _weather,
                 {"type": "object", "properties": {"city": {"type": "string"}}}),
    AgentTool.of("send_email", "Send an email to a person.", _broken),
    AgentTool.of("slow_tool", "Run a slow job.", _slow),
]  # fmt: skip


def _call(name: str, **args: JsonValue) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(name=name, input=dict(args))])


async def test_user_tools_results_errors_and_timeouts(tenant: Scope, make_agent: MakeAgent) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(
                text="Let me check.",
                tool_calls=[
                    ScriptedToolCall(name="get_weather", input={"city": "Lisbon"}),
                    ScriptedToolCall(name="send_email", input={}),
                    ScriptedToolCall(name="slow_tool", input={}),
                    ScriptedToolCall(name="no_such_tool", input={}),
                ],
            ),
            "It is sunny in Lisbon.",
        ]
    )
    config = AgentConfig.model_validate({"tools": {"timeout": 0.2}})
    agent = make_agent(model, config, tools=TOOLS)
    response = await agent.run(tenant, "What's the weather in Lisbon?")
    assert response.text == "Let me check.\n\nIt is sunny in Lisbon."
    results = {r.name: r for r in response.tool_results}
    assert results["get_weather"].content == '{"city": "Lisbon", "forecast": "sunny"}'
    assert not results["get_weather"].is_error
    assert results["send_email"].is_error and "backend down" in results["send_email"].content
    assert results["slow_tool"].is_error and "timed out" in results["slow_tool"].content
    assert results["no_such_tool"].is_error and "unknown tool" in results["no_such_tool"].content
    assert [t.name for t in model.requests[0].tools] == ["get_weather", "send_email", "slow_tool"]
    sent = model.requests[1].messages[-1]
    assert [b.type for b in sent.content] == ["tool_result"] * 4  # type: ignore[union-attr]
    assert response.errors == [] and response.model_calls == 2


async def test_the_tool_loop_stops_at_the_round_cap(tenant: Scope, make_agent: MakeAgent) -> None:
    model = ScriptedModel([_call("get_weather", city="Paris")], cycle=True)
    config = AgentConfig.model_validate({"tools": {"max_rounds": 2}})
    agent = make_agent(model, config, tools=TOOLS)
    response = await agent.run(tenant, "Weather in Paris?")
    assert response.model_calls == 3 and len(response.tool_results) == 2
    [error] = response.errors
    assert error.stage == "tools" and error.error_type == "ToolRoundLimit"
    assert response.events[-1].type == "message_end"


def test_tool_names_must_be_unique(memory: Memory) -> None:
    from hippograph.agent import Agent

    with pytest.raises(InvalidInputError, match="taken"):
        Agent(memory, ScriptedModel([]), tools=[TOOLS[0], TOOLS[0]])
    with pytest.raises(InvalidInputError, match="taken"):
        Agent(memory, ScriptedModel([]), tools=[AgentTool.of("hydrate_context", "x", _weather)])


async def test_triage_observe_reports_and_changes_nothing(tenant: Scope, make_agent: MakeAgent) -> None:
    model = ScriptedModel(["ok"])
    config = AgentConfig.model_validate({"triage": {"intent_mode": "observe", "tool_routing_mode": "observe"}})
    agent = make_agent(model, config, tools=TOOLS)
    response = await agent.run(tenant, "What is the weather like in Lisbon?")
    assert response.intent is not None and response.intent.verdict == "knowledge"
    routing = [e for e in response.events if isinstance(e, ToolRoutingDecision)]
    assert routing[0].dropped == ["send_email", "slow_tool"]
    assert [t.name for t in model.requests[0].tools] == ["get_weather", "send_email", "slow_tool"]
    assert response.activations, "all layers hydrated"


async def test_triage_enforce_narrows_tools_and_layers(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    await memory.remember(tenant, "server", "The production server is called atlas.")
    await internals(memory).prospective.set_trigger(tenant, "the user deploys", "remind them to tag the release")
    model = ScriptedModel(["On it."], cycle=True)
    intents = {"get_weather": "knowledge", "send_email": "action", "slow_tool": "action"}
    config = AgentConfig.model_validate(
        {
            "triage": {
                "intent_mode": "enforce",
                "tool_routing_mode": "enforce",
                "tool_intents": intents,
            }
        }
    )
    agent = make_agent(model, config, tools=TOOLS)

    action = await agent.run(tenant, "Send an email to the ops team now and restart the server")
    assert isinstance(action.events[0], IntentClassified) and action.intent is not None
    assert action.intent.verdict == "action"
    assert [t.name for t in model.requests[0].tools] == ["send_email", "slow_tool"]
    assert action.activations == []  # recall skipped: working and prospective only
    context = model.requests[0].system.context  # type: ignore[union-attr]
    assert "## REMINDERS" in context and "remind them to tag the release" in context
    assert "atlas" not in context

    knowledge = await agent.run(tenant, "What is the name of the production server?")
    assert knowledge.intent is not None and knowledge.intent.verdict == "knowledge"
    assert [t.name for t in model.requests[1].tools] == ["get_weather"]
    assert "atlas" in model.requests[1].system.context  # type: ignore[union-attr]


async def test_fabrication_observe_streams_and_reports(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedModel([FABRICATED]), AgentConfig.model_validate(
        {"fabrication": {"mode": "observe"}}))  # fmt: skip
    events = [e async for e in agent.stream(tenant, "Please deploy the service.")]
    [found] = [e for e in events if isinstance(e, FabricationDetected)]
    assert found.action == "observed"
    assert "verb_claim" in {f.kind for f in found.findings}
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == FABRICATED


async def test_fabrication_refuse_swaps_the_draft_and_drops_its_ops(tenant: Scope, make_agent: MakeAgent) -> None:
    block = '<MEMORY_EXTRACT>{"ops": [{"op": "create_event", "content": "deployed"}]}</MEMORY_EXTRACT>'
    model = ScriptedModel([FABRICATED + block])
    agent = make_agent(model, AgentConfig.model_validate({"fabrication": {"mode": "refuse"}}))
    events = [e async for e in agent.stream(tenant, "Please deploy the service.")]
    [found] = [e for e in events if isinstance(e, FabricationDetected)]
    assert found.action == "refused"
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert "".join(d.text for d in deltas) == DEFAULT_SAFE_REPLY  # the draft never streamed
    extracted = next(e for e in events if e.type == "memory_extracted")
    assert extracted.ops == [] and "refused" in (extracted.reason or "")  # type: ignore[union-attr]
    types = [e.type for e in events]
    assert types.index("fabrication_detected") < types.index("text_delta")


async def test_fabrication_revise_runs_one_more_round(tenant: Scope, make_agent: MakeAgent) -> None:
    model = ScriptedModel([FABRICATED, "I can't confirm a deployment: no tool ran it."])
    agent = make_agent(model, AgentConfig.model_validate({"fabrication": {"mode": "revise"}}))
    response = await agent.run(tenant, "Please deploy the service.")
    assert response.fabrication is not None and response.fabrication.action == "revise"
    assert response.text == "I can't confirm a deployment: no tool ran it."
    assert response.model_calls == 2
    revision = model.requests[1].messages
    assert [m.role for m in revision] == ["user", "assistant", "user"]
    assert "4f3a9c2e1b77" in revision[2].text and "Rewrite the reply" in revision[2].text
    streamed = "".join(e.text for e in response.events if isinstance(e, TextDelta))
    assert streamed == response.text
    assert [e.type for e in response.events].count("message_end") == 2
    assert not any(isinstance(e, StageFailed) for e in response.events)


async def test_clean_replies_pass_the_check_untouched(tenant: Scope, make_agent: MakeAgent) -> None:
    model = ScriptedModel(["Your dog is Rex."])
    agent = make_agent(model, AgentConfig.model_validate({"fabrication": {"mode": "refuse"}}))
    response = await agent.run(tenant, "My dog is Rex; what is its name?")
    assert response.text == "Your dog is Rex." and response.fabrication is None
