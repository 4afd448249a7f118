"""A library agent's token budget and call records, and the hydrate settings for the layers a
turn may recall from and the verbatim working-memory window, against the real Neo4j."""

from __future__ import annotations

import pytest

from hippograph.agent import AgentConfig, BudgetExceededError, CallRecords, HydrateSettings, TokenBudget
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent

pytestmark = pytest.mark.integration


def _echo() -> ScriptedModel:
    return ScriptedModel(lambda request: f"echo: {request.messages[-1].text}")


def _working_lines(context: str | None) -> list[str]:
    return [line for line in (context or "").splitlines() if "[working" in line]


async def test_a_budget_refuses_a_spent_tenant_and_calls_are_recorded_per_conversation(
    tenant: Scope, make_agent: MakeAgent
) -> None:
    budget = TokenBudget(daily_tokens=1)
    records = CallRecords()
    agent = make_agent(_echo(), budget=budget, call_records=records)
    user = tenant.child("user", "ivy")
    first = await agent.run(user, "Hello there.", session_id="chat-1")
    [call] = records.of("chat-1")
    assert call.scope_key == user.key and call.tokens == first.usage.total_input_tokens + first.usage.output_tokens
    with pytest.raises(BudgetExceededError) as refused:
        await agent.run(tenant.child("user", "jon"), "Another user of the same tenant.")
    assert refused.value.scope_key == tenant.key and refused.value.used == call.tokens
    with pytest.raises(BudgetExceededError):
        async for _ in agent.stream(user, "And a stream."):
            pass
    assert len(records.of("chat-1")) == 1  # nothing ran

    other = await agent.run(user, "A named account.", charge_to="org:elsewhere")
    assert records.of(other.session_id)
    with pytest.raises(BudgetExceededError) as elsewhere:
        await budget.account("org:elsewhere").check()
    assert elsewhere.value.used == sum(c.tokens for c in records.of(other.session_id))


async def test_an_agent_records_its_calls_without_a_budget(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(_echo())
    reply = await agent.run(tenant, "Hi.")
    assert [c.conversation for c in agent.call_records.of(reply.session_id)] == [reply.session_id]


async def test_enabled_layers_and_the_verbatim_window(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    await memory.remember(tenant, "dog", "The user's dog is called Rex.")
    model = _echo()
    config = AgentConfig(hydrate=HydrateSettings(working_memory_raw_turns=1))
    agent = make_agent(model, config)
    for text in ("First, my dog.", "Second, the weather.", "Third: what is my dog called?"):
        await agent.run(tenant, text, session_id="chat-1")
        await agent.drain()
    last = model.requests[-1].system.context  # type: ignore[union-attr]
    working = _working_lines(last)
    assert len(working) == 1 and "Second" in working[0], last
    assert "Rex" in (last or "")

    narrow = _echo()
    config = AgentConfig(hydrate=HydrateSettings(enabled_layers=(Layer.WORKING, Layer.EPISODIC)))
    agent = make_agent(narrow, config)
    await agent.run(tenant, "What is my dog called?", session_id="chat-1")
    context = narrow.requests[-1].system.context or ""  # type: ignore[union-attr]
    assert "[semantic" not in context and len(_working_lines(context)) == 2, context
