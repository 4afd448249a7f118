"""Issue 13 #1, the other dependencies: the embedder or the model provider failing in the middle
of a turn. The turn ends in exactly one of two ways — the reply is delivered (with the failure
reported as a recoverable stage error), or the turn fails with one clear error — and nothing
half-written is left behind."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.agent.events import StageFailed
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import HippographError
from hippograph.layers.semantic import AGENT_IDENTITY
from hippograph.llm import ModelError, ScriptedModel
from hippograph.llm.events import ModelEvent
from hippograph.llm.types import ModelRequest
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from hippograph.store import GraphStore


class FlakyEmbeddings(HashingEmbeddings):
    """Hashing embeddings that fail while ``broken`` is set (a model server that went away)."""

    broken = False

    async def embed(self, text: str) -> list[float]:
        if self.broken:
            raise ConnectionError("embedding service unreachable")
        return await super().embed(text)

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if self.broken:
            raise ConnectionError("embedding service unreachable")
        return await super().embed_batch(texts)


class DyingModel(ScriptedModel):
    """Streams the first chunks of its reply, then the provider fails."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        sent = 0
        async for event in super().stream(request):
            yield event
            sent += 1
            if sent == 3:
                raise ModelError("the provider closed the stream")


async def test_embedder_failing_mid_turn_still_replies_and_reports_it(store: GraphStore, tenant: Scope) -> None:
    embedder = FlakyEmbeddings()
    memory = Memory(store, embedder)
    await memory.remember(tenant, "Ana's city", "Ana lives in Lisbon.")
    agent = Agent(memory, ScriptedModel(["I am not sure where you live."]), AgentConfig())
    embedder.broken = True
    response = await agent.run(tenant, "Where do I live?")
    assert response.text == "I am not sure where you live."
    assert [e.stage for e in response.errors] == ["hydrate"]
    assert response.errors[0].recoverable
    await agent.drain()
    embedder.broken = False
    facts = [n for n in await store.query_subtree(tenant, limit=None) if n.layer is Layer.SEMANTIC]
    kept = [f.label for f in facts if f.label != AGENT_IDENTITY]  # the persona is seeded once the reply is out
    assert kept == ["Ana's city"], "a half-written fact"


async def test_model_failing_mid_stream_fails_the_turn_with_one_clear_error(store: GraphStore, tenant: Scope) -> None:
    memory = Memory(store, HashingEmbeddings())
    await memory.remember(tenant, "Ana's city", "Ana lives in Lisbon.")
    model = DyingModel(["You live in Lisbon, as you told me last week."], chunk_size=4, cycle=True)
    agent = Agent(memory, model, AgentConfig())
    before = {n.id for n in await store.query_subtree(tenant, limit=None)}
    with pytest.raises(HippographError) as failure:
        await agent.run(tenant, "Where do I live?")
    assert isinstance(failure.value, ModelError), repr(failure.value)
    await agent.drain()
    after = {n.id for n in await store.query_subtree(tenant, limit=None)}
    assert after == before, "a failed turn wrote memories"
    events = [e async for e in agent.stream(tenant, "Where do I live?")]  # streamed: one error event, then the end
    [failed] = [e for e in events if isinstance(e, StageFailed)]
    assert (failed.error_type, failed.recoverable) == ("ModelError", False)
    assert events[-1].type == "message_end"
