"""``Agent.warm``: the memory's warm-up, a session resumed and the persona seeded in the
warm-up scope, which is erased again, and the session written last read back — the database
holds what it held before, and the agent holds no session of it. A process's first turn in a
tenant whose identity is seeded reads nothing to seed it again."""

from __future__ import annotations

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.agent.agent import WARM_SESSION
from hippograph.embeddings import HashingEmbeddings
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.memory.warm import WARM_SCOPE
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.memory_internals import internals


async def _count(store: GraphStore) -> int:
    """Every node and relationship of the database (a probe of this test, not a catalogued query)."""
    records, _, _ = await store.conn.driver.execute_query(
        "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) + count(r) AS n", database_=store.conn.database
    )
    return int(records[0]["n"])


async def test_agent_warm_leaves_the_database_as_it_was(store: GraphStore) -> None:
    memory = Memory(store, HashingEmbeddings())
    agent = Agent(memory, ScriptedModel(["hello"], cycle=True), AgentConfig())
    before = await _count(store)
    warmed = await agent.warm()
    assert warmed.total_ms > 0
    assert internals(memory).engine._warming is not None and internals(memory).engine._warming.done()
    assert await _count(store) == before  # the seeded persona was erased with its scope
    assert agent.sessions.get(WARM_SCOPE, WARM_SESSION) is None
    await agent.drain()
    assert await _count(store) == before


async def test_agent_warm_reads_back_the_session_written_last(
    store: GraphStore, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = Memory(store, HashingEmbeddings())
    first = Agent(memory, ScriptedModel(["hello"], cycle=True), AgentConfig())
    for message in ("one", "two"):
        await first.run(tenant, message, session_id="chat-9")
    await first.drain()
    before = await _count(store)
    agent = Agent(memory, ScriptedModel(["hello"], cycle=True), AgentConfig())  # a restarted process
    warmed: list[tuple[str, str, int]] = []
    read_back = agent.sessions.warm

    async def noted(scope: Scope, session_id: str) -> int:
        turns = await read_back(scope, session_id)
        warmed.append((scope.key, session_id, turns))
        return turns

    monkeypatch.setattr(agent.sessions, "warm", noted)
    await agent.warm()
    assert warmed == [(tenant.key, "chat-9", 2)]  # its turns' rows read, as a resume reads them
    assert agent.sessions.get(tenant, "chat-9") is None  # and not kept: the next turn resumes it
    assert await _count(store) == before
    response = await agent.run(tenant, "three", session_id="chat-9")
    assert [m.text for m in agent.model.requests[-1].messages] == ["one", "hello", "two", "hello", "three"]  # type: ignore[attr-defined]
    assert response.session_id == "chat-9"
    await agent.drain()


async def test_a_first_turn_where_the_identity_is_seeded_does_not_seed_it_again(
    store: GraphStore, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = Memory(store, HashingEmbeddings())
    seeded: list[str] = []
    ensure = internals(memory).semantic.ensure_identity

    async def noted(scope: Scope, description: str) -> object:
        seeded.append(scope.key)
        return await ensure(scope, description)

    monkeypatch.setattr(internals(memory).semantic, "ensure_identity", noted)
    first = Agent(memory, ScriptedModel(["hello"], cycle=True), AgentConfig())
    await first.run(tenant, "hi")
    await first.drain()
    assert seeded == [tenant.key]  # no identity yet: seeded after the reply
    again = Agent(memory, ScriptedModel(["hello"], cycle=True), AgentConfig())  # a restarted process
    await again.run(tenant, "hi again")
    await again.drain()
    assert seeded == [tenant.key]  # the turn's persona read found it: nothing more to look up
    persona = await internals(memory).semantic.persona(tenant)
    assert persona.identity is not None and persona.identity.scope_key == tenant.key
