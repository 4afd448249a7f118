"""Issue 9 #9: one failing piece of recall degrades only itself. Activation failing leaves
the direct hits; one channel failing leaves the other; one layer failing leaves the other
layers — and the turn's events say what degraded. (A failure of everything still falls back
to working memory, as before.)"""

from __future__ import annotations

from typing import Any

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.errors import StoreError
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.retrieval import engine as engine_module
from hippograph.scope import Scope
from tests.support.memory_internals import internals

QUESTION = "What is my dog called?"
# Events that report normal work; anything else a turn emits is about something that failed.
NORMAL = {
    "message_start", "message_end", "text_delta", "thinking_delta", "thinking_signature",
    "tool_call_start", "tool_call_delta", "tool_result", "usage", "activation",
    "memory_extracted", "consolidation_scheduled", "fabrication_detected", "intent_classified",
    "tool_routing_decision",
}  # fmt: skip


def _boom(*_: Any, **__: Any) -> Any:
    raise StoreError("injected failure", retryable=True)


async def _seed(memory: Memory, scope: Scope) -> None:
    await memory.remember(scope, "user's dog", "The user's dog is called Rex.")
    await internals(memory).episodic.store_event(scope, "The user walked the dog Rex in the park.", label="dog walk")


async def _turn(memory: Memory, scope: Scope) -> tuple[str, list[str]]:
    """(the memory context the model saw, what the turn's events said went wrong)."""
    model = ScriptedModel(lambda request: "ok")
    agent = Agent(memory, model, AgentConfig())
    try:
        events = [e async for e in agent.stream(scope, QUESTION)]
    finally:
        await agent.drain()
    said = [e.model_dump_json() for e in events if e.type not in NORMAL]
    return model.requests[0].system.context or "", said  # type: ignore[union-attr]


def _lines(context: str, layer: str) -> list[str]:
    return [line for line in context.splitlines() if f"[{layer}]" in line]


async def test_activation_failing_leaves_the_direct_hits(
    memory: Memory, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _seed(memory, tenant)
    monkeypatch.setattr(engine_module, "edge_arrivals", _boom)  # the maths on the spreading read
    context, said = await _turn(memory, tenant)
    assert any("Rex" in line for line in _lines(context, "semantic")), context
    assert any("activation" in s for s in said), said


async def test_one_channel_failing_leaves_the_other(
    memory: Memory, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _seed(memory, tenant)
    monkeypatch.setattr(engine_module, "build_query", _boom)  # the fulltext channel's query
    context, said = await _turn(memory, tenant)
    assert any("Rex" in line for line in _lines(context, "semantic")), context
    assert any("fulltext" in s for s in said), said


async def test_one_layer_failing_leaves_the_others(
    memory: Memory, tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _seed(memory, tenant)
    monkeypatch.setattr(internals(memory).episodic, "render_for_prompt", _boom)
    context, said = await _turn(memory, tenant)
    assert any("Rex" in line for line in _lines(context, "semantic")), context
    assert _lines(context, "episodic") == []
    assert any("episodic" in s for s in said), said


async def test_nothing_degrades_when_nothing_fails(memory: Memory, tenant: Scope) -> None:
    await _seed(memory, tenant)
    context, said = await _turn(memory, tenant)
    assert any("Rex" in line for line in _lines(context, "semantic")) and _lines(context, "episodic")
    assert said == []
