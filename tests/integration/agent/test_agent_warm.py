"""``Agent.warm``: the memory's warm-up, a session resumed and the persona seeded in the
warm-up scope, which is erased again — the database holds what it held before, and the
agent holds no session of it."""

from __future__ import annotations

from hippograph.agent import Agent, AgentConfig
from hippograph.agent.agent import WARM_SESSION
from hippograph.embeddings import HashingEmbeddings
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.memory.warm import WARM_SCOPE
from hippograph.store import GraphStore


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
    assert memory.engine._warming is not None and memory.engine._warming.done()
    assert await _count(store) == before  # the seeded persona was erased with its scope
    assert agent.sessions.get(WARM_SCOPE, WARM_SESSION) is None
    await agent.drain()
    assert await _count(store) == before
