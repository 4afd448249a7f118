"""Issue 9, the reference's missing behaviour: triggers that fire at hydration (time and
condition), resolved and snoozed by the model's ops with audit; the persona seeded once per
scope and corrected through ``SOUL:<name>`` profiles that consolidation applies; working-memory
summaries and long-session compaction by the model."""

from __future__ import annotations

import asyncio
import time

import pytest

from hippograph.agent import AgentConfig
from hippograph.agent.config import PersonaSettings
from hippograph.agent.events import StageFailed, TriggerFired
from hippograph.audit import list_audit
from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.layers.semantic import AGENT_IDENTITY
from hippograph.llm import ScriptedModel
from hippograph.llm.types import ModelRequest
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals

DAY = 86_400.0


def _block(*ops: str) -> str:
    return 'Noted.\n<MEMORY_EXTRACT>{"ops": [' + ", ".join(ops) + "]}</MEMORY_EXTRACT>"


async def test_a_due_time_trigger_and_a_named_condition_fire_into_the_prompt_and_the_stream(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    pm = internals(memory).prospective
    now = time.time()
    due = await pm.set_trigger(tenant, "on the 3rd", "send the rent reminder", due_at=now - 3600)
    later = await pm.set_trigger(tenant, "next month", "renew the passport", due_at=now + 30 * DAY)
    bob = await pm.set_trigger(tenant, "the user mentions Bob", "ask how Bob's surgery went")
    budget = await pm.set_trigger(tenant, "budget talk", "share the Q3 sheet", about=["quarterly budget"])
    model = ScriptedModel(["Sure."], cycle=True)
    agent = make_agent(model)

    reply = await agent.run(tenant, "I had lunch with Bob today.")
    fired = [e for e in reply.events if isinstance(e, TriggerFired)]
    assert [(e.id, e.reason) for e in fired] == [(due.id, "due"), (bob.id, "condition")]
    assert fired[1].matched == ["Bob"] and fired[0].due_at == pytest.approx(now - 3600)
    context = model.requests[0].system.context  # type: ignore[union-attr]
    section = context[context.index("## REMINDERS") :]
    assert section.index("send the rent reminder") < section.index("ask how Bob") < section.index("renew the passport")
    assert "FIRED" in section and f"[id:{later.id[:8]}] waiting" in section

    quiet = await agent.run(tenant, "What should I cook tonight?")
    assert [e.id for e in quiet.events if isinstance(e, TriggerFired)] == [due.id]
    talk = await agent.run(tenant, "Let us go over the quarterly budget numbers.")
    assert {e.id for e in talk.events if isinstance(e, TriggerFired)} == {due.id, budget.id}


async def test_the_model_resolves_and_snoozes_triggers_by_handle_with_audit(
    tenant: Scope, memory: Memory, make_agent: MakeAgent, conn: Neo4jConnection
) -> None:
    pm = internals(memory).prospective
    past = time.time() - 60
    rent = await pm.set_trigger(tenant, "on the 3rd", "send the rent reminder", due_at=past)
    gym = await pm.set_trigger(tenant, "on the 4th", "book the gym", due_at=past)
    ops = (
        f'{{"op": "resolve_trigger", "id": "id:{rent.id[:8]}", "outcome": "reminded"}}',
        f'{{"op": "snooze_trigger", "id": "{gym.id[:8]}", "until": "2999-01-01T09:00"}}',
    )
    agent = make_agent(ScriptedModel([_block(*ops), "Ok."]))
    await agent.run(tenant, "Thanks, done with the rent.")
    await agent.drain()
    assert [t.id for t in await pm.get_pending(tenant)] == [gym.id]
    snoozed = await internals(memory).store.get_node(tenant, gym.id)
    assert snoozed is not None and snoozed.properties["snoozed_until"] == 32472176400.0
    after = await agent.run(tenant, "Anything else?")
    assert [e for e in after.events if isinstance(e, TriggerFired)] == []
    entries = await list_audit(conn, tenant)
    assert {(e.action, e.target, e.actor) for e in entries} >= {
        ("trigger.resolve", rent.id, "model"), ("trigger.snooze", gym.id, "model"),
    }  # fmt: skip


async def test_more_than_five_pending_triggers_are_ranked_not_cut_by_age(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    pm = internals(memory).prospective
    old = [await pm.set_trigger(tenant, f"someday {i}", f"idle task {i}", importance=3.0) for i in range(6)]
    urgent = await pm.set_trigger(tenant, "always", "check the invoices", importance=9.0)
    named = await pm.set_trigger(tenant, "the user mentions Lisbon", "suggest the tram tour", importance=3.0)
    model = ScriptedModel(["Sure."], cycle=True)
    reply = await make_agent(model).run(tenant, "We fly to Lisbon next week.")
    assert [e.id for e in reply.events if isinstance(e, TriggerFired)] == [named.id]
    context = model.requests[0].system.context  # type: ignore[union-attr]
    shown = [line for line in context.splitlines() if line.startswith("- [id:")]
    assert len(shown) == 5 and shown[0].startswith(f"- [id:{named.id[:8]}]")
    assert shown[1].startswith(f"- [id:{urgent.id[:8]}]")
    assert "(3 more pending, ranked lower)" in context
    assert old[-1].id[:8] not in context


async def test_triggers_keep_to_their_own_scope(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    child, sibling = tenant.child("user", "a"), tenant.child("user", "b")
    past = time.time() - 60
    await internals(memory).prospective.set_trigger(sibling, "on the 3rd", "sibling's reminder", due_at=past)
    await internals(memory).prospective.set_trigger(tenant, "on the 3rd", "org reminder", due_at=past)
    model = ScriptedModel(["Sure."], cycle=True)
    reply = await make_agent(model).run(child, "Hello.")
    assert [e for e in reply.events if isinstance(e, TriggerFired)] == []
    assert "reminder" not in model.requests[0].system.context  # type: ignore[union-attr]


async def test_the_identity_is_seeded_at_the_turn_scope_by_default(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    user = tenant.child("user", "solo")
    await make_agent(ScriptedModel(["Hi."], cycle=True)).run(user, "Hello there.")
    seeded = await internals(memory).semantic.query_facts(user, label=AGENT_IDENTITY)
    assert [f.scope_key for f in seeded] == [user.key]  # nothing written above the turn's scope


async def test_the_identity_is_seeded_once_per_scope_under_concurrency_and_rendered(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    config = AgentConfig(
        agent_name="Juno", agent_description="A travel assistant.", persona=PersonaSettings(seed_at="root")
    )
    models = [ScriptedModel(["Hi."], cycle=True) for _ in range(6)]
    agents = [make_agent(m, config) for m in models]
    users = [tenant.child("user", f"u{i}") for i in range(6)]
    await asyncio.gather(*(a.run(u, "Hello there.") for a, u in zip(agents, users, strict=True)))
    facts = await internals(memory).semantic.query_facts(tenant, label=AGENT_IDENTITY)
    identities = [f for f in facts if f.scope_key == tenant.key]
    assert len(identities) == 1 and identities[0].content == "I am Juno. A travel assistant."
    for model in models:
        assert "## PERSONA\nI am Juno. A travel assistant." in model.requests[0].system.text  # type: ignore[union-attr]


async def test_a_profile_correction_op_reaches_the_soul_phase_and_the_next_prompt(
    tenant: Scope, memory: Memory, make_agent: MakeAgent, conn: Neo4jConnection
) -> None:
    await internals(memory).semantic.soul(tenant, "Juno", {"tone": "formal"})
    sleeper = SleepConsolidator(conn, ConsolidationConfig(soul_schema=("tone", "user_name")))
    config = AgentConfig(agent_name="Juno")
    fix = (
        '{"op": "correct_profile", "name": "Juno", "key": "tone", "value": "casual", "reason": "user asked"}',
        '{"op": "correct_profile", "name": "Juno", "key": "password", "value": "x"}',
    )
    model = ScriptedModel([_block(*fix), "Hey!"])
    agent = make_agent(model, config, consolidator=sleeper)
    first = await agent.run(tenant, "Please be less formal with me.")
    assert "Profile SOUL:Juno — tone: formal" in model.requests[0].system.text  # type: ignore[union-attr]
    assert "(keys: tone, user_name)" in model.requests[0].system.text  # type: ignore[union-attr]
    assert not [e for e in first.events if isinstance(e, StageFailed)]
    await agent.drain()

    report = await sleeper.run(tenant)
    soul = report.phase("soul_corrections")
    assert soul.counts == {"profiles": 1, "applied": 1, "rejected": 1}
    await agent.run(tenant, "Hello again.")
    persona = model.requests[1].system.text.split("## PERSONA")[1]  # type: ignore[union-attr]
    assert "Profile SOUL:Juno — tone: casual" in persona and "password" not in persona


async def test_working_summary_llm_asks_the_model_and_long_sessions_compact(
    tenant: Scope, make_agent: MakeAgent
) -> None:
    def reply(request: ModelRequest) -> str:
        if request.system is not None and request.system.text.startswith("You compress"):
            return f"SUMMARY of {request.messages[0].text.count('- ')} texts"
        return "Fine."

    model = ScriptedModel(reply)
    config = AgentConfig.model_validate(
        {"hydrate": {"working_summary": "llm"}, "sessions": {"history_turns": 2, "compaction": "llm"}}
    )
    agent = make_agent(model, config)
    session = None
    for i in range(5):
        response = await agent.run(tenant, f"Message number {i} about the trip.", session_id=session)
        session = response.session_id
        await agent.drain()
    turns = [r for r in model.requests if not r.system.text.startswith("You compress")]  # type: ignore[union-attr]
    asked = [r for r in model.requests if r.system.text.startswith("You compress")]  # type: ignore[union-attr]
    assert len(turns) == 5 and asked
    last = turns[-1]
    assert len(last.messages) == 5  # the 2 kept turns and this message
    context = last.system.context  # type: ignore[union-attr]
    assert "## EARLIER IN THIS CONVERSATION" in context
    assert "Summary of the turns before these messages: SUMMARY of" in context
    assert "[working summary] SUMMARY of" in context


def test_unknown_summary_modes_are_refused_by_config_validation() -> None:
    for bad in ({"hydrate": {"working_summary": "abstractive"}}, {"sessions": {"compaction": "smart"}}):
        with pytest.raises(ValueError, match=r"literal_error|Input should be"):
            AgentConfig.model_validate(bad)
