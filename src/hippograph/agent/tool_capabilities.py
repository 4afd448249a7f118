"""Tools come from the capabilities registered with the agent, not from flags.

A :class:`ToolCapability` brings tools for the turn's scope; ``Agent(capabilities=[...])``
offers a turn the tools of every capability registered (then triage may narrow them), and a
capability that is not registered brings none — there is no switch to forget. ``Agent(tools=
[...])`` is the :class:`Tools` capability of those tools.

:class:`MemoryTools` is the memory as tools: ``recall_memory`` (and with ``write``,
``remember``) bound, each turn, to the turn's scope through
:meth:`~hippograph.memory.Memory.for_scope`, so a tool call can never read or write
another scope's memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import JsonValue

from hippograph.agent.tools import AgentTool
from hippograph.errors import InvalidInputError
from hippograph.memory import Memory
from hippograph.scope import Scope

__all__ = ["MemoryTools", "ToolCapability", "Tools", "tools_for"]

RECALL_TOOL = "recall_memory"
REMEMBER_TOOL = "remember"
MAX_RECALL = 20


@runtime_checkable
class ToolCapability(Protocol):
    """Something the agent can do, as the tools it brings for a scope."""

    @property
    def name(self) -> str:
        """The capability's name (unique among an agent's capabilities)."""
        ...

    def tools(self, scope: Scope) -> Sequence[AgentTool]:
        """The tools a turn in ``scope`` may call."""
        ...


class Tools:
    """A capability of fixed tools (what ``Agent(tools=...)`` registers)."""

    def __init__(self, tools: Sequence[AgentTool], *, name: str = "tools") -> None:
        self._name = name
        self._tools = list(tools)

    @property
    def name(self) -> str:
        return self._name

    def tools(self, scope: Scope) -> Sequence[AgentTool]:
        return self._tools


class MemoryTools:
    """The memory as tools, bound to the turn's scope.

    Args:
        memory: The memory.
        write: Also offer ``remember`` (store a fact in the turn's scope).
        limit: Memories a ``recall_memory`` call returns at most (the model may ask for fewer).
        budget: UTF-8 bytes of one recall's text.
    """

    def __init__(self, memory: Memory, *, write: bool = False, limit: int = 5, budget: int = 4_000) -> None:
        self._memory = memory
        self._write = write
        self._limit = limit
        self._budget = budget

    @property
    def name(self) -> str:
        return "memory"

    def tools(self, scope: Scope) -> Sequence[AgentTool]:
        capability = self._memory.for_scope(scope, limit=self._limit, budget=self._budget)

        async def recall(args: dict[str, JsonValue]) -> str:
            query = args.get("query")
            if not isinstance(query, str) or not query.strip():
                raise InvalidInputError("query", "recall_memory needs a non-empty 'query'")
            top_k = args.get("top_k")
            k = top_k if isinstance(top_k, int) and 1 <= top_k <= MAX_RECALL else None
            found = await capability.recall(query, limit=k, include_working=False)
            return found.text or "(nothing remembered about that)"

        tools = [
            AgentTool.of(
                RECALL_TOOL,
                "Search your long-term memory of this user and conversation for what bears on a question.",
                recall,
                {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for, in a few words."},
                        "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_RECALL},
                    },
                    "required": ["query"],
                },
            )
        ]
        if self._write:
            memory = self._memory

            async def remember(args: dict[str, JsonValue]) -> str:
                label, content = args.get("label"), args.get("content")
                if not isinstance(label, str) or not isinstance(content, str) or not content.strip():
                    raise InvalidInputError("label", "remember needs a 'label' and a non-empty 'content'")
                fact = await memory.remember(scope, label, content)
                return f"remembered as {fact.id}"

            tools.append(
                AgentTool.of(
                    REMEMBER_TOOL,
                    "Store a lasting fact about the user or their world in long-term memory.",
                    remember,
                    {
                        "type": "object",
                        "properties": {
                            "label": {"type": "string", "description": "A short name for the fact."},
                            "content": {"type": "string", "description": "The fact, in one sentence."},
                        },
                        "required": ["label", "content"],
                    },
                )
            )
        return tools


def tools_for(capabilities: Sequence[ToolCapability], scope: Scope) -> tuple[dict[str, AgentTool], list[str]]:
    """The tools of every capability for ``scope``, by name; and the names that clashed (the
    first capability registered keeps the name)."""
    named: dict[str, AgentTool] = {}
    clashes: list[str] = []
    for capability in capabilities:
        for tool in capability.tools(scope):
            if tool.name in named:
                clashes.append(f"{capability.name}:{tool.name}")
                continue
            named[tool.name] = tool
    return named, clashes
