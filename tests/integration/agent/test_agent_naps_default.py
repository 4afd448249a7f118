"""Naps by default: a library agent built without a consolidator naps every 10 turns of a
scope (the consolidator's default cadence), 0 turns naps off; a token ledger that fails never
blocks a turn; the fabrication policy's refusal is a ``fabrication_blocked`` event."""

from __future__ import annotations

import pytest

from hippograph.agent import AgentConfig, TokenBudget
from hippograph.agent.events import FabricationBlocked, FabricationDetected
from hippograph.agent.findings import DEFAULT_REFUSE_MIN_CONFIDENCE, DEFAULT_SAFE_REPLY
from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.consolidation.report import EntryPoint
from hippograph.llm import ScriptedModel
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.agent.conftest import MakeAgent
from tests.unit.test_token_budget import BrokenLedger

pytestmark = pytest.mark.integration


async def test_a_library_agent_naps_every_ten_turns_by_default(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedModel(["Noted."], cycle=True))
    assert agent.consolidator.config.turns_between_naps == 10
    user = tenant.child("user", "ana")
    naps = []
    for i in range(10):
        reply = await agent.run(user, f"Note {i}: I like sailing.", session_id="chat")
        assert reply.consolidation is not None
        naps.append(reply.consolidation.quick_nap)
    assert naps == [False] * 9 + [True]
    reports = await agent.drain()
    [nap] = [r.nap for r in reports if r.nap is not None]
    assert nap.entry_point is EntryPoint.QUICK_NAP and nap.error is None
    runs = await agent.consolidator.list_runs(user)
    assert [r.entry_point for r in runs] == [EntryPoint.QUICK_NAP]


async def test_zero_turns_between_naps_turns_naps_off(
    tenant: Scope, make_agent: MakeAgent, conn: Neo4jConnection
) -> None:
    off = SleepConsolidator(conn, ConsolidationConfig(turns_between_naps=0))
    agent = make_agent(ScriptedModel(["Noted."], cycle=True), consolidator=off)
    user = tenant.child("user", "bo")
    for i in range(12):
        reply = await agent.run(user, f"Note {i}.", session_id="chat")
        assert reply.consolidation is not None and not reply.consolidation.quick_nap
    await agent.drain()
    assert await off.list_runs(user) == []


async def test_a_failing_ledger_never_blocks_a_turn(tenant: Scope, make_agent: MakeAgent) -> None:
    budget = TokenBudget(daily_tokens=10, ledger=BrokenLedger())
    agent = make_agent(ScriptedModel(["Noted."], cycle=True), budget=budget)
    user = tenant.child("user", "cy")
    first = await agent.run(user, "My boat is called Wren.")
    events = [e async for e in agent.stream(user, "What is my boat called?")]
    assert first.text == "Noted." and events[-1].type == "message_end"
    assert first.errors == [] and (budget.failures.check, budget.failures.charge) == (2, 2)


async def test_the_refusing_policy_streams_fabrication_blocked(tenant: Scope, make_agent: MakeAgent) -> None:
    block = '<MEMORY_EXTRACT>{"ops": [{"op": "create_event", "content": "deployed"}]}</MEMORY_EXTRACT>'
    draft = "I deployed build 4f3a9c2e1b7d8a6f to production." + block
    agent = make_agent(ScriptedModel([draft]), AgentConfig.model_validate({"fabrication": {"mode": "refuse"}}))
    events = [e async for e in agent.stream(tenant, "Please deploy the service.")]
    [detected] = [e for e in events if isinstance(e, FabricationDetected)]
    [blocked] = [e for e in events if isinstance(e, FabricationBlocked)]
    types = [e.type for e in events]
    assert types.index("fabrication_detected") < types.index("fabrication_blocked") < types.index("text_delta")
    assert blocked.reply == DEFAULT_SAFE_REPLY and blocked.dropped_ops == 1
    assert blocked.findings == len(detected.findings) and blocked.min_confidence == DEFAULT_REFUSE_MIN_CONFIDENCE
    assert blocked.confidence == max(f.confidence for f in detected.findings) >= blocked.min_confidence

    observed = make_agent(
        ScriptedModel([draft]), AgentConfig.model_validate({"fabrication": {"mode": "observe"}})
    )  # a policy that only observes blocks nothing
    assert not [e async for e in observed.stream(tenant, "Please deploy.") if isinstance(e, FabricationBlocked)]
