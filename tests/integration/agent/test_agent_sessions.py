"""Sessions on real Neo4j: many chats per scope, resumed from the graph after a restart
(a new Agent) or an eviction, never across scopes; turns of one session run in order."""

from __future__ import annotations

import asyncio

from hippograph.agent import AgentConfig, SessionSettings
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


def _echo() -> ScriptedModel:
    return ScriptedModel(lambda request: f"echo: {request.messages[-1].text}")


async def test_a_session_resumes_from_the_graph_after_a_restart(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    alice = tenant.child("user", "alice")
    before = make_agent(_echo())
    for message in ["one", "two", "three"]:
        await before.run(alice, message, session_id="chat-7")
    await before.run(alice, "elsewhere", session_id="chat-8")
    await before.drain()

    model = _echo()
    after = make_agent(model)  # a new process: nothing in memory
    response = await after.run(alice, "four", session_id="chat-7")
    assert response.text == "echo: four"
    sent = model.requests[0].messages
    assert [(m.role, m.text) for m in sent] == [
        ("user", "one"), ("assistant", "echo: one"),
        ("user", "two"), ("assistant", "echo: two"),
        ("user", "three"), ("assistant", "echo: three"),
        ("user", "four"),
    ]  # fmt: skip
    session = after.sessions.get(alice, "chat-7")
    assert session is not None and session.resumed and session.turns == 4
    await after.drain()
    events = await internals(memory).episodic.query_events(alice, session_id="chat-7", limit=10)
    chain = [e.content for e in reversed(events)]
    assert chain == [f"User: {m} | Agent: echo: {m}" for m in ["one", "two", "three", "four"]]
    first, *_ = reversed(events)
    nxt = await internals(memory).store.get_neighbors(alice, first.id, Relationship.NEXT)
    assert [n.content for n, _ in nxt] == ["User: two | Agent: echo: two"]

    bob = tenant.child("user", "bob")
    await after.run(bob, "hi", session_id="chat-7")  # the same id in another scope
    assert [m.text for m in model.requests[-1].messages] == ["hi"]


async def test_an_evicted_session_comes_back_from_the_graph(tenant: Scope, make_agent: MakeAgent) -> None:
    config = AgentConfig(sessions=SessionSettings(max_per_tenant=2, history_turns=5))
    model = _echo()
    agent = make_agent(config=config, model=model)
    await agent.run(tenant, "remember me", session_id="old")
    await agent.drain()
    await agent.run(tenant, "x", session_id="b")
    await agent.run(tenant, "y", session_id="c")  # evicts "old"
    assert agent.sessions.get(tenant, "old") is None
    await agent.run(tenant, "back", session_id="old")
    assert [m.text for m in model.requests[-1].messages] == [
        "remember me",
        "echo: remember me",
        "back",
    ]
    assert agent.sessions.count(tenant) <= 2


async def test_many_chats_per_scope_and_concurrent_turns_of_one_session_in_order(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    model = ScriptedModel(lambda request: f"echo: {request.messages[-1].text}", delay=0.001)
    agent = make_agent(model)
    chats = [f"chat-{i}" for i in range(5)]
    await asyncio.gather(*(agent.run(tenant, f"hello {c}", session_id=c) for c in chats))
    await asyncio.gather(*(agent.run(tenant, f"turn {i}", session_id="busy") for i in range(4)))
    await agent.drain()
    assert {s.id for s in agent.sessions.list(tenant)} == {*chats, "busy"}
    busy = agent.sessions.get(tenant, "busy")
    assert busy is not None and busy.turns == 4
    # each turn saw the ones before it: the session lock serialises them
    lengths = sorted(len(r.messages) for r in model.requests if "turn" in r.messages[-1].text)
    assert lengths == [1, 3, 5, 7]
    events = await internals(memory).episodic.query_events(tenant, session_id="busy", limit=10)
    assert len(events) == 4
    heads = []
    for event in events:
        incoming = await internals(memory).store.get_neighbors(tenant, event.id, Relationship.NEXT)
        heads.append(len(incoming))
    assert sorted(heads) == [1, 1, 2, 2]  # one chain: its ends have one NEXT, the middles two
    working = [n for n in await internals(memory).store.query_subtree(tenant) if n.layer is Layer.WORKING]
    assert len(working) == 9 and {n.session_id for n in working} == {*chats, "busy"}
