"""Learning from plain chat: the tool calls of ordinary turns are recorded as episodic
``action`` events, and consolidation's phase 12 turns recurring ones into a draft skill."""

from __future__ import annotations

from pydantic import JsonValue

from hippograph.agent import AgentConfig, AgentTool
from hippograph.consolidation import Phase, SleepConsolidator
from hippograph.llm import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


async def _logs(args: dict[str, JsonValue]) -> str:
    return f"{args.get('service')}: out of memory at 03:12"


async def _restart(args: dict[str, JsonValue]) -> str:
    return f"{args.get('service')} restarted"


TOOLS = [
    AgentTool.of("check_logs", "Read a service's recent logs.", _logs),
    AgentTool.of("restart_service", "Restart a service.", _restart),
]


def _turn(service: str) -> list[ScriptedReply]:
    return [
        ScriptedReply(tool_calls=[ScriptedToolCall(name="check_logs", input={"service": service})]),
        ScriptedReply(tool_calls=[ScriptedToolCall(name="restart_service", input={"service": service})]),
        ScriptedReply(text=f"{service} ran out of memory; I restarted it."),
    ]


async def test_recurring_tool_calls_of_plain_chat_become_a_draft_skill(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    user = tenant.child("user", "ops")
    services = ["billing", "search", "mail"]
    model = ScriptedModel([reply for s in services for reply in _turn(s)])
    agent = make_agent(model, AgentConfig(), tools=TOOLS)
    for service in services:
        await agent.run(user, f"The {service} service is down again, can you fix it?")
    reports = await agent.drain()
    assert all(r.errors == [] for r in reports)

    events = await internals(memory).episodic.query_events(user, limit=20)
    actions = [e for e in events if e.properties.get("kind") == "action"]
    assert len(actions) == 3
    assert {a.label for a in actions} == {"check logs, restart service"}
    assert "Called restart_service" in actions[0].content
    part_of = await internals(memory).store.query_edges(user, {"relationship": Relationship.PART_OF}, limit=100)
    turns = {e.id for e in events if e.properties.get("kind") == "turn"}
    assert {(e.source in {a.id for a in actions}, e.target in turns) for e in part_of} == {(True, True)}

    report = await SleepConsolidator.for_memory(memory).run(user, only=[Phase.PROCEDURAL_PROMOTION])

    assert report.phase(Phase.PROCEDURAL_PROMOTION).counts["drafts"] == 1  # type: ignore[union-attr]
    skills = await internals(memory).store.query_subtree(user, {"layers": [Layer.PROCEDURAL]}, limit=None)
    assert [s.label for s in skills] == ["check logs restart service"]
    draft = skills[0]
    assert draft.properties["status"] == "draft" and draft.properties["active"] is False
    assert sorted(draft.properties["evidence_ids"]) == sorted(a.id for a in actions)  # type: ignore[arg-type]
    assert draft.properties["steps"] == ["check_logs(service)", "restart_service(service)"]  # the procedure
    assert await internals(memory).procedural.query_skills(user) == []  # never active without approval


async def test_turns_without_tools_record_no_action(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedModel([ScriptedReply(text="Hello!")]), AgentConfig(), tools=TOOLS)
    await agent.run(tenant, "Hi there")
    await agent.drain()
    events = await internals(memory).episodic.query_events(tenant, limit=20)
    assert [e.properties.get("kind") for e in events] == ["turn"]
