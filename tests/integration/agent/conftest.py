"""Fixtures of the agent tests: a memory over the test Neo4j with fast hashing embeddings,
and a factory of agents on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.embeddings import HashingEmbeddings
from hippograph.llm.provider import ModelProvider
from hippograph.memory import Memory
from hippograph.store import GraphStore
from tests.support.memory_internals import internals

MakeAgent = Callable[..., Agent]


@pytest.fixture
async def memory(store: GraphStore) -> AsyncIterator[Memory]:
    orchestrator = Memory(store, HashingEmbeddings())
    yield orchestrator
    await internals(orchestrator).engine.drain()


@pytest.fixture
async def make_agent(memory: Memory) -> AsyncIterator[MakeAgent]:
    """``make_agent(model, config=None, **kwargs)``; every agent is drained afterwards."""
    agents: list[Agent] = []

    def build(model: ModelProvider, config: AgentConfig | None = None, **kwargs: Any) -> Agent:
        agent = Agent(memory, model, config or AgentConfig(), **kwargs)
        agents.append(agent)
        return agent

    yield build
    for agent in agents:
        await agent.drain()
