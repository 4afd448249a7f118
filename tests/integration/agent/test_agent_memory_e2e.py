"""End to end on real Neo4j with the offline model: a fact said in turn 1 is extracted,
stored in the background, and recalled into the prompt of turn 5 in a new session of the
same scope — never in a sibling scope. Credentials never reach memory or a later prompt."""

from __future__ import annotations

from hippograph.agent import AgentConfig, ConsolidationSettings, demo_model
from hippograph.agent.events import (
    Activation,
    ConsolidationScheduled,
    MemoryExtracted,
    MessageEnd,
    MessageStart,
    TextDelta,
)
from hippograph.llm import ScriptedModel, ScriptedReply
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals

SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


async def test_fact_of_turn_one_is_in_the_prompt_of_turn_five_in_a_new_session(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    alice = tenant.child("user", "alice")
    bob = tenant.child("user", "bob")
    model = demo_model()
    agent = make_agent(model)

    first = await agent.run(alice, "Hi! My dog is called Rex.")
    assert first.text == "Got it: your dog is called Rex. I'll remember that."
    assert "MEMORY_EXTRACT" not in first.text
    assert first.memory is not None and [op.op for op in first.memory.ops] == ["upsert_node"]
    assert first.consolidation is not None and first.consolidation.op_count == 1
    reports = await agent.drain()
    assert len(reports) == 1 and reports[0].errors == []
    fact_id = reports[0].mentions[0]

    for message in ["The weather is nice today.", "I am planning a trip.", "Thanks for the help."]:
        await agent.run(alice, message, session_id=first.session_id)
        await agent.drain()

    fifth = await agent.run(alice, "What is my dog called?")
    assert fifth.session_id != first.session_id
    request = model.requests[-1]
    assert [m.role for m in request.messages] == ["user"]  # a new session: no history
    assert request.system is not None and "The user's dog is called Rex." in request.system.context
    assert fifth.text == "From what I remember: user's dog: The user's dog is called Rex."
    activation = fifth.activations[0]
    assert fact_id in [n.id for n in activation.nodes]
    assert fact_id in activation.details["in_context"]  # type: ignore[operator]

    sibling = await agent.run(bob, "What is my dog called?")
    request = model.requests[-1]
    assert request.system is not None and "Rex" not in request.system.context
    assert all("Rex" not in m.text for m in request.messages)
    assert sibling.text.startswith("I don't remember")
    assert all(fact_id != n.id for a in sibling.activations for n in a.nodes)
    await agent.drain()
    assert all("Rex" not in n.model_dump_json() for n in await internals(memory).store.query_subtree(bob))


async def test_consolidation_writes_the_turn_the_fact_and_their_link(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(
                thinking="The user shares a fact worth keeping.",
                text='Noted.\n<MEMORY_EXTRACT>{"ops": ['
                '{"op": "upsert_node", "label": "favourite tea", "content": "green tea"},'
                '{"op": "register_skill", "name": "brew tea", "steps": ["boil", "steep"]},'
                '{"op": "set_trigger", "condition": "user mentions coffee", "task": "offer tea"}'
                "]}</MEMORY_EXTRACT>",
            )
        ]
    )
    agent = make_agent(model)
    result = await agent.run(tenant, "I love green tea.", session_id="chat-1")
    assert result.text == "Noted."
    assert result.thinking == "The user shares a fact worth keeping."
    [report] = await agent.drain()
    assert report.errors == [] and report.commit is not None
    assert [a["op"] for a in report.commit.applied] == [
        "upsert_node",
        "register_skill",
        "set_trigger",
    ]

    nodes = {n.id: n for n in await internals(memory).store.query_subtree(tenant)}
    turn = nodes[report.turn_event_id]  # type: ignore[index]
    assert turn.layer is Layer.EPISODIC and turn.session_id == "chat-1"
    assert turn.content == "User: I love green tea. | Agent: Noted."
    assert turn.importance == 3.0
    [fact_id] = report.mentions
    assert nodes[fact_id].layer is Layer.SEMANTIC
    mentions = await internals(memory).store.get_neighbors(tenant, turn.id, Relationship.MENTIONS)
    assert [(n.id, e.source) for n, e in mentions] == [(fact_id, turn.id)]
    skills = [n for n in nodes.values() if n.layer is Layer.PROCEDURAL]
    assert [s.properties["status"] for s in skills] == ["draft"]
    working = sorted((n for n in nodes.values() if n.layer is Layer.WORKING), key=lambda n: n.created_at)
    assert [w.properties["kind"] for w in working] == ["thinking", "turn"]
    assert working[0].content == "The user shares a fact worth keeping."
    assert working[0].ttl == 86_400.0
    assert [n.session_id for n in working] == ["chat-1", "chat-1"]


async def test_auto_approved_skills_are_active(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    block = '{"ops": [{"op": "register_skill", "name": "deploy the app", "steps": ["build", "ship"]}]}'
    model = ScriptedModel([f"Sure.<MEMORY_EXTRACT>{block}</MEMORY_EXTRACT>"])
    config = AgentConfig(consolidation=ConsolidationSettings(auto_approve_skills=True))
    agent = make_agent(model, config)
    await agent.run(tenant, "Remember how we deploy: build, then ship.")
    await agent.drain()
    [skill] = [n for n in await internals(memory).store.query_subtree(tenant) if n.layer is Layer.PROCEDURAL]
    assert skill.properties["status"] == "approved" and skill.properties["active"] is True


async def test_stream_order_and_text_without_the_block(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(demo_model())
    events = [e async for e in agent.stream(tenant, "My cat is named Tom.")]
    types = [e.type for e in events]
    assert types[0] == "activation"
    assert types[1] == "message_start"
    assert types[-3:] == ["memory_extracted", "consolidation_scheduled", "message_end"]
    assert isinstance(events[1], MessageStart) and isinstance(events[-1], MessageEnd)
    assert isinstance(events[0], Activation)
    assert isinstance(events[-3], MemoryExtracted) and isinstance(events[-2], ConsolidationScheduled)
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "Got it: your cat is named Tom. I'll remember that."
    assert len([e for e in events if isinstance(e, TextDelta)]) > 3  # streamed, not in one piece


async def test_credentials_never_reach_memory_or_the_next_prompt(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    block = (
        '{"ops": [{"op": "upsert_node", "label": "deploy key ' + SECRET + '", '
        '"content": "The API key is ' + SECRET + '", '
        '"properties": {"api_key": "' + SECRET + '", "owner": "ops"}},'
        '{"op": "create_event", "content": "user shared password: hunter2secret"}]}'
    )
    model = ScriptedModel(
        [
            ScriptedReply(
                thinking=f"The key {SECRET} must not be stored.",
                text=f"Your key {SECRET} is noted.<MEMORY_EXTRACT>{block}</MEMORY_EXTRACT>",
            ),
            "Done.",
        ]
    )
    agent = make_agent(model)
    first = await agent.run(tenant, f"My API key is {SECRET}, password: hunter2secret")
    [report] = await agent.drain()
    assert report.errors == []
    second = await agent.run(tenant, "What is my API key?", session_id=first.session_id)
    await agent.drain()

    stored = await internals(memory).store.query_subtree(tenant)
    assert stored, "the turn and its ops were stored"
    for node in stored:
        dumped = node.model_dump_json()
        assert SECRET not in dumped and "hunter2secret" not in dumped
    assert any(n.layer is Layer.SEMANTIC and "[REDACTED]" in n.content for n in stored)
    request = model.requests[-1]
    assert SECRET not in request.model_dump_json()
    assert "hunter2secret" not in request.model_dump_json()
    assert [m.role for m in request.messages] == ["user", "assistant", "user"]
    assert second.text == "Done."


async def test_the_demo_model_recalls_through_hydrate_context_in_jit_mode(tenant: Scope, make_agent: MakeAgent) -> None:
    model = demo_model()
    agent = make_agent(model, AgentConfig(prompt_mode="jit", thinking_budget=1024))
    await agent.run(tenant, "I live in Lisbon.")
    await agent.drain()
    response = await agent.run(tenant, "Where do I live?")
    assert response.text == "From what I remember: user's home: The user lives in Lisbon."
    assert [r.name for r in response.tool_results] == ["hydrate_context"]
    assert response.model_calls == 2 and response.activations
    assert response.thinking.startswith("The user sent a question.")
    assert model.requests[-2].system is not None and model.requests[-2].system.context == ""
