"""Tools come from the capabilities registered, not from flags: the memory tools exist for a
turn only when ``MemoryTools`` is registered, bound to the turn's scope (never a sibling's)."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from hippograph.agent import AgentTool, MemoryTools, Tools
from hippograph.agent.events import StageFailed
from hippograph.errors import InvalidInputError
from hippograph.llm import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


def _call(name: str, **args: JsonValue) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(name=name, input=dict(args))])


async def test_memory_tools_come_with_the_capability_and_stay_in_scope(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    ana, bo = tenant.child("user", "ana"), tenant.child("user", "bo")
    await memory.remember(ana, "Ana's dog", "Ana's dog is called Rex.")
    await memory.remember(bo, "Bo's dog", "Bo's dog is called Fido.")
    model = ScriptedModel(
        [
            _call("recall_memory", query="dog name"),
            _call("remember", label="Ana's cat", content="Ana's cat is called Tom."),
            "Your dog is Rex; I noted your cat Tom.",
        ]
    )
    agent = make_agent(model, capabilities=[MemoryTools(memory, write=True)])

    response = await agent.run(ana, "What's my dog called? Also, my cat is Tom.")

    assert [t.name for t in model.requests[0].tools] == ["recall_memory", "remember"]
    recalled, remembered = response.tool_results
    assert not recalled.is_error and "Rex" in recalled.content and "Fido" not in recalled.content
    assert not remembered.is_error and remembered.content.startswith("remembered as ")
    cats = await internals(memory).semantic.query_facts(ana, label="Ana's cat")
    assert [c.scope_key for c in cats] == [ana.key]
    assert await internals(memory).semantic.query_facts(bo, label="Ana's cat") == []


async def test_without_the_capability_there_is_no_memory_tool(tenant: Scope, make_agent: MakeAgent) -> None:
    model = ScriptedModel([_call("recall_memory", query="dog"), "I can't look that up."])
    agent = make_agent(model)
    response = await agent.run(tenant, "What's my dog called?")
    assert model.requests[0].tools == []
    [result] = response.tool_results
    assert result.is_error and "unknown tool" in result.content


async def _echo(args: dict[str, JsonValue]) -> str:
    return "echo"


async def test_tool_names_are_unique_across_capabilities(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    clash = Tools([AgentTool.of("recall_memory", "Another recall.", _echo)], name="other")
    model = ScriptedModel(["Hi."])
    response = await make_agent(model, capabilities=[MemoryTools(memory), clash]).run(tenant, "hi")
    [failed] = [e for e in response.events if isinstance(e, StageFailed)]
    assert failed.error_type == "ToolNameClash" and "other:recall_memory" in failed.message
    [tool] = model.requests[0].tools
    assert tool.description.startswith("Search your long-term memory")
    with pytest.raises(InvalidInputError, match="unique"):
        make_agent(model, capabilities=[MemoryTools(memory), MemoryTools(memory)])
