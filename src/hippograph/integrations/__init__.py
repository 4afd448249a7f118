"""hippograph as the store of other tools' memory.

- :class:`ClaudeMemoryTool` / :class:`ClaudeMemoryToolSync`: Claude's client-side memory tool
  (``memory_20250818``) for the Anthropic SDK's tool runner, its ``/memories`` files kept as
  versioned facts of one scope (needs the ``anthropic`` extra).
- :class:`HippographStore`: a LangGraph store (``BaseStore``), its namespaces scopes below one
  scope and its items facts (needs the ``langgraph`` extra).

The names load lazily: importing this package imports no SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippograph._lazy import lazy_exports

if TYPE_CHECKING:
    from hippograph.integrations.claude_memory import ClaudeMemoryTool, ClaudeMemoryToolSync
    from hippograph.integrations.langgraph_store import HippographStore

_EXPORTS: dict[str, tuple[str, str]] = {
    "ClaudeMemoryTool": ("hippograph.integrations.claude_memory", "ClaudeMemoryTool"),
    "ClaudeMemoryToolSync": ("hippograph.integrations.claude_memory", "ClaudeMemoryToolSync"),
    "HippographStore": ("hippograph.integrations.langgraph_store", "HippographStore"),
}

__all__ = ["ClaudeMemoryTool", "ClaudeMemoryToolSync", "HippographStore"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
