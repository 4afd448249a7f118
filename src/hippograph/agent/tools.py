"""Tools the agent runs for the model: a :class:`ToolSpec` and an async callable.

A tool's result may be a string or anything JSON-serialisable; a tool that raises, times
out or is unknown gives the model an error result (``is_error``) and never breaks the turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from hippograph.llm.types import ToolSpec

log = logging.getLogger(__name__)

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
