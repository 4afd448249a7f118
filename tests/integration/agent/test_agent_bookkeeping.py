"""A turn's recall bookkeeping (access counts) is written after the model's reply, not on the
way to the model: at the model's call nothing of it has run; once the turn is over it has,
also when the model fails."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from hippograph.llm import ScriptedModel
from hippograph.llm.errors import ModelError
from hippograph.llm.events import ModelEvent
from hippograph.llm.provider import ModelProvider
from hippograph.llm.types import ModelRequest, ModelResponse
from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals

QUESTION = "Where does the quokka keeper live?"


class Looking:
    """A model that first waits for the memory's background work and looks at the store."""

    def __init__(self, inner: ModelProvider, look: Callable[[], Awaitable[int]], *, fail: bool = False) -> None:
        self.inner, self.look, self.fail = inner, look, fail
        self.seen: list[int] = []

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        return self._stream(request)

    async def _stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.seen.append(await self.look())
        if self.fail:
            raise ModelError("the model is down")
        async for event in self.inner.stream(request):
            yield event

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.seen.append(await self.look())
        if self.fail:
            raise ModelError("the model is down")
        return await self.inner.complete(request)


async def _access_count(memory: Memory, scope: Scope, node_id: str) -> int:
    await internals(memory).engine.drain()  # whatever background bookkeeping was started by now has run
    node = await internals(memory).store.get_node(scope, node_id)
    assert node is not None
    return node.access_count


@pytest.mark.parametrize("fail", [False, True], ids=["answered", "model failed"])
async def test_access_counts_are_written_after_the_model_answers(
    memory: Memory, tenant: Scope, make_agent: MakeAgent, fail: bool
) -> None:
    fact = await memory.remember(tenant, "The quokka keeper lives in Perth, by the harbour.")
    model = Looking(ScriptedModel(["Perth."], cycle=True), lambda: _access_count(memory, tenant, fact.id), fail=fail)
    agent = make_agent(model)
    if fail:
        with pytest.raises(ModelError):
            await agent.run(tenant, QUESTION)
    else:
        response = await agent.run(tenant, QUESTION)
        assert fact.id in response.activations[0].details["in_context"]  # type: ignore[operator]
    assert model.seen == [0]  # at the model's call: not yet written
    await agent.drain()
    assert await _access_count(memory, tenant, fact.id) == 1  # after the turn: written, once
