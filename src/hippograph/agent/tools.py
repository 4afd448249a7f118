"""Tools the agent runs for the model: a :class:`ToolSpec` and an async callable.

A tool's result may be a string or anything JSON-serialisable; a tool that raises, times
out or is unknown gives the model an error result (``is_error``) and never breaks the turn.

The tools stage of a turn (:func:`run_round`) runs one round of the model's tool calls in
parallel, including the JIT ``hydrate_context`` tool that recalls from memory on the model's
request.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from hippograph.agent.events import AgentEvent, ToolResult
from hippograph.agent.hydrate import hydrate
from hippograph.agent.prompts import HYDRATE_CONTEXT_TOOL_NAME, NO_MEMORIES
from hippograph.agent.stages import Out, Stage
from hippograph.errors import InvalidInputError
from hippograph.layers.episodic import ActionCall
from hippograph.llm.types import ToolResultBlock, ToolSpec, ToolUseBlock
from hippograph.models import Layer
from hippograph.tracing import Status, StatusCode, span

if TYPE_CHECKING:
    from hippograph.agent.config import HydrateSettings, ToolLoopSettings
    from hippograph.agent.observability import StageClock
    from hippograph.memory import Memory
    from hippograph.scope import Scope

log = logging.getLogger(__name__)

MAX_HYDRATE_TOP_K = 20

ToolHandler = Callable[[dict[str, JsonValue]], Awaitable[Any]]
"""An async function from the model's tool input to the result."""


@dataclass(frozen=True, slots=True)
class AgentTool:
    """A tool: what the model is told (``spec``) and what runs (``handler``).

    Example:
        >>> async def weather(args):
        ...     return {"city": args["city"], "forecast": "sunny"}
        >>> tool = AgentTool.of("get_weather", "Today's forecast for a city.", weather,
        ...                     {"type": "object", "properties": {"city": {"type": "string"}}})
    """

    spec: ToolSpec
    handler: ToolHandler

    @classmethod
    def of(
        cls,
        name: str,
        description: str,
        handler: ToolHandler,
        input_schema: dict[str, JsonValue] | None = None,
    ) -> AgentTool:
        """Build a tool from its parts (the schema defaults to an empty object)."""
        spec = ToolSpec(name=name, description=description)
        if input_schema is not None:
            spec = ToolSpec(name=name, description=description, input_schema=input_schema)
        return cls(spec, handler)

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.spec.name


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """The text sent back to the model and whether it reports a failure."""

    content: str
    is_error: bool = False


async def run_tool(tool: AgentTool, arguments: dict[str, JsonValue], *, timeout: float, max_chars: int) -> ToolOutcome:
    """Run one tool call; failures become error results."""
    try:
        result = await asyncio.wait_for(tool.handler(arguments), timeout)
    except TimeoutError:
        return ToolOutcome(f"tool {tool.name} timed out after {timeout:g} s", is_error=True)
    except Exception as exc:
        log.warning("tool %s failed: %s", tool.name, type(exc).__name__)
        return ToolOutcome(f"tool {tool.name} failed: {type(exc).__name__}: {exc}"[:1000], True)
    return ToolOutcome(result_text(result)[:max_chars])


def result_text(result: Any) -> str:
    """A tool result as text: strings as they are, anything else as JSON."""
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(result)


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


@dataclass(frozen=True)
class HydrateTool:
    """The ``hydrate_context`` tool of one turn: recall from ``memory`` for ``scope`` within
    the layers triage kept."""

    memory: Memory
    settings: HydrateSettings
    scope: Scope
    session_id: str
    layers: Collection[Layer]


@dataclass(frozen=True)
class ToolRound:
    """The tools stage's output: the results for the model, the agent's own actions (not
    ``hydrate_context``), and the memory contexts the ``hydrate_context`` calls recalled."""

    results: list[ToolResultBlock]
    actions: list[ActionCall]
    memory_texts: list[str]


async def run_round(
    calls: Sequence[ToolUseBlock],
    *,
    tools: Mapping[str, AgentTool],
    settings: ToolLoopSettings,
    hydrate_tool: HydrateTool | None,
    clock: StageClock,
    out: Out[ToolRound],
) -> AsyncIterator[AgentEvent]:
    """The tools stage: run ``calls`` (in parallel); yield their events and results."""
    memory_texts: list[str] = []
    with clock.time(Stage.TOOLS):
        outcomes = await asyncio.gather(
            *(_traced_call(call, tools, settings, hydrate_tool, memory_texts) for call in calls)
        )
    results: list[ToolResultBlock] = []
    actions: list[ActionCall] = []
    for call, (outcome, extra) in zip(calls, outcomes, strict=True):
        if call.name in tools:
            actions.append(ActionCall(call.name, dict(call.input), ok=not outcome.is_error))
        for event in extra:
            yield event
        yield ToolResult(tool_use_id=call.id, name=call.name, content=outcome.content, is_error=outcome.is_error)
        results.append(
            ToolResultBlock(tool_use_id=call.id, content=outcome.content or "(no output)", is_error=outcome.is_error)
        )
    out.value = ToolRound(results, actions, memory_texts)


async def _traced_call(
    call: ToolUseBlock,
    tools: Mapping[str, AgentTool],
    s: ToolLoopSettings,
    hydrate_tool: HydrateTool | None,
    memory_texts: list[str],
) -> tuple[ToolOutcome, list[AgentEvent]]:
    """One tool call in a span ``execute_tool <name>`` (GenAI semantic conventions)."""
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
    }
    with span(f"execute_tool {call.name}", attributes) as current:
        outcome, events = await _run_call(call, tools, s, hydrate_tool, memory_texts)
        if outcome.is_error:
            current.set_status(Status(StatusCode.ERROR, "the tool answered with an error"))
        return outcome, events


async def _run_call(
    call: ToolUseBlock,
    tools: Mapping[str, AgentTool],
    s: ToolLoopSettings,
    hydrate_tool: HydrateTool | None,
    memory_texts: list[str],
) -> tuple[ToolOutcome, list[AgentEvent]]:
    if call.name == HYDRATE_CONTEXT_TOOL_NAME and hydrate_tool is not None:
        return await _hydrate_context(call, hydrate_tool, memory_texts)
    tool = tools.get(call.name)
    if tool is None:
        return ToolOutcome(f"unknown tool {call.name!r}", is_error=True), []
    outcome = await run_tool(tool, call.input, timeout=s.timeout, max_chars=s.max_result_chars)
    return outcome, []


async def _hydrate_context(
    call: ToolUseBlock, h: HydrateTool, memory_texts: list[str]
) -> tuple[ToolOutcome, list[AgentEvent]]:
    args = call.input
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return ToolOutcome("hydrate_context needs a non-empty 'query' string", True), []
    wanted = set(h.layers)
    asked = args.get("layers")
    if isinstance(asked, list) and asked:
        names = {layer.value: layer for layer in Layer}
        wanted &= {names[a] for a in asked if isinstance(a, str) and a in names}
    top_k = args.get("top_k")
    k = top_k if isinstance(top_k, int) and 1 <= top_k <= MAX_HYDRATE_TOP_K else None
    hydration = await hydrate(h.memory, h.settings, h.scope, query, wanted, top_k=k, session_id=h.session_id)
    memory_texts.append(hydration.text)
    events: list[AgentEvent] = [*hydration.errors]
    if hydration.activation is not None:
        events.append(hydration.activation)
    if hydration.errors and not hydration.text:
        return ToolOutcome("memory is unavailable right now", is_error=True), events
    return ToolOutcome(hydration.text or NO_MEMORIES), events
