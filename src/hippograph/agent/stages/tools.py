"""Tools stage: run one round of the model's tool calls (in parallel), including the JIT
``hydrate_context`` tool that recalls from memory on the model's request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Collection, Sequence

from hippograph.agent.events import AgentEvent, ToolResult
from hippograph.agent.prompts import HYDRATE_CONTEXT_TOOL_NAME, NO_MEMORIES
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.tools import AgentTool, ToolOutcome, run_tool
from hippograph.agent.turn_state import TurnState
from hippograph.errors import InvalidInputError
from hippograph.layers.episodic import ActionCall
from hippograph.llm.types import ToolResultBlock, ToolUseBlock
from hippograph.models import Layer

MAX_HYDRATE_TOP_K = 20


def by_name(tools: Sequence[AgentTool]) -> dict[str, AgentTool]:
    """The agent's tools by name.

    Raises:
        InvalidInputError: Two tools share a name, or a tool takes ``hydrate_context``.
    """
    named: dict[str, AgentTool] = {}
    for tool in tools:
        if tool.name == HYDRATE_CONTEXT_TOOL_NAME or tool.name in named:
            raise InvalidInputError("tools", f"tool name {tool.name!r} is taken")
        named[tool.name] = tool
    return named


async def run(
    t: TurnState, d: StageDeps, calls: list[ToolUseBlock], results: list[ToolResultBlock]
) -> AsyncIterator[AgentEvent]:
    """Run ``calls``; yield their events and results, and append the results to ``results``."""
    t.stage = Stage.TOOLS
    layers = t.require_decision().layers
    with t.clock.time(Stage.TOOLS):
        outcomes = await asyncio.gather(*(_run_call(t, d, call, layers) for call in calls))
    for call, (outcome, extra) in zip(calls, outcomes, strict=True):
        if call.name in t.tools:
            t.actions.append(ActionCall(call.name, dict(call.input), ok=not outcome.is_error))
        for event in extra:
            yield event
        yield ToolResult(tool_use_id=call.id, name=call.name, content=outcome.content, is_error=outcome.is_error)
        results.append(
            ToolResultBlock(tool_use_id=call.id, content=outcome.content or "(no output)", is_error=outcome.is_error)
        )


async def _run_call(
    t: TurnState, d: StageDeps, call: ToolUseBlock, layers: Collection[Layer]
) -> tuple[ToolOutcome, list[AgentEvent]]:
    if call.name == HYDRATE_CONTEXT_TOOL_NAME and d.config.prompt_mode == "jit":
        return await _hydrate_tool(t, d, call, layers)
    tool = t.tools.get(call.name)
    if tool is None:
        return ToolOutcome(f"unknown tool {call.name!r}", is_error=True), []
    s = d.config.tools
    outcome = await run_tool(tool, call.input, timeout=s.timeout, max_chars=s.max_result_chars)
    return outcome, []


async def _hydrate_tool(
    t: TurnState, d: StageDeps, call: ToolUseBlock, layers: Collection[Layer]
) -> tuple[ToolOutcome, list[AgentEvent]]:
    args = call.input
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return ToolOutcome("hydrate_context needs a non-empty 'query' string", True), []
    wanted = set(layers)
    asked = args.get("layers")
    if isinstance(asked, list) and asked:
        names = {layer.value: layer for layer in Layer}
        wanted &= {names[a] for a in asked if isinstance(a, str) and a in names}
    top_k = args.get("top_k")
    k = top_k if isinstance(top_k, int) and 1 <= top_k <= MAX_HYDRATE_TOP_K else None
    hydration = await d.hydrator.hydrate(t.scope, query, wanted, top_k=k, session_id=t.require_session().id)
    t.memory_texts.append(hydration.text)
    events: list[AgentEvent] = [*hydration.errors]
    if hydration.activation is not None:
        events.append(hydration.activation)
    if hydration.errors and not hydration.text:
        return ToolOutcome("memory is unavailable right now", is_error=True), events
    return ToolOutcome(hydration.text or NO_MEMORIES), events
