"""hippograph — long-term memory for LLM agents, native in Neo4j.

Everything a user needs is one attribute away::

    import hippograph as hg

    async with await hg.Memory.connect("bolt://127.0.0.1:7687", password="…") as memory:
        bob = hg.Scope.root("org", "acme").child("user", "bob")
        await memory.remember(bob, "Bob's city", "Bob lives in Lisbon.")
        result = await memory.recall(bob, "Where does Bob live?")

The names load lazily: ``import hippograph`` imports none of the heavy or optional
packages (torch, sentence-transformers, anthropic, fastapi, typer); each name's module is
imported on first use. Sub-packages keep their own, longer lists (``hippograph.memory``,
``hippograph.retrieval``, ``hippograph.llm`` …).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippograph._lazy import lazy_exports

if TYPE_CHECKING:
    from hippograph.agent import Agent, AgentConfig, demo_model
    from hippograph.app.runtime import open_memory
    from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
    from hippograph.errors import (
        AlreadyRunningError,
        ConfigurationError,
        ConflictError,
        HippographError,
        InvalidInputError,
        InvalidQueryError,
        InvalidScopeError,
        MissingExtraError,
        NotFoundError,
        StoreError,
        StoreFailedError,
        StoreUnavailableError,
    )
    from hippograph.llm import AnthropicModel, ScriptedModel
    from hippograph.memory import Memory, MemoryCapability
    from hippograph.models import Layer, MemoryNode
    from hippograph.retrieval import RecallConfig, RecallResult
    from hippograph.scope import Scope
    from hippograph.store import causal_scope

_EXPORTS: dict[str, tuple[str, str]] = {
    # memory
    "Memory": ("hippograph.memory", "Memory"),
    "Scope": ("hippograph.scope", "Scope"),
    "Layer": ("hippograph.models", "Layer"),
    "MemoryNode": ("hippograph.models", "MemoryNode"),
    "RecallConfig": ("hippograph.retrieval", "RecallConfig"),
    "RecallResult": ("hippograph.retrieval", "RecallResult"),
    "MemoryCapability": ("hippograph.memory", "MemoryCapability"),
    "open_memory": ("hippograph.app.runtime", "open_memory"),
    "causal_scope": ("hippograph.store", "causal_scope"),
    # consolidation
    "SleepConsolidator": ("hippograph.consolidation", "SleepConsolidator"),
    "ConsolidationConfig": ("hippograph.consolidation", "ConsolidationConfig"),
    # the agent and its models
    "Agent": ("hippograph.agent", "Agent"),
    "AgentConfig": ("hippograph.agent", "AgentConfig"),
    "AnthropicModel": ("hippograph.llm", "AnthropicModel"),
    "ScriptedModel": ("hippograph.llm", "ScriptedModel"),
    "demo_model": ("hippograph.agent", "demo_model"),
    # errors
    "HippographError": ("hippograph.errors", "HippographError"),
    "InvalidInputError": ("hippograph.errors", "InvalidInputError"),
    "InvalidScopeError": ("hippograph.errors", "InvalidScopeError"),
    "InvalidQueryError": ("hippograph.errors", "InvalidQueryError"),
    "NotFoundError": ("hippograph.errors", "NotFoundError"),
    "ConflictError": ("hippograph.errors", "ConflictError"),
    "AlreadyRunningError": ("hippograph.errors", "AlreadyRunningError"),
    "ConfigurationError": ("hippograph.errors", "ConfigurationError"),
    "MissingExtraError": ("hippograph.errors", "MissingExtraError"),
    "StoreError": ("hippograph.errors", "StoreError"),
    "StoreUnavailableError": ("hippograph.errors", "StoreUnavailableError"),
    "StoreFailedError": ("hippograph.errors", "StoreFailedError"),
}

# The same names as the table (tests/unit/test_public_api.py checks it); written out for type checkers.
__all__ = [
    "Agent",
    "AgentConfig",
    "AlreadyRunningError",
    "AnthropicModel",
    "ConfigurationError",
    "ConflictError",
    "ConsolidationConfig",
    "HippographError",
    "InvalidInputError",
    "InvalidQueryError",
    "InvalidScopeError",
    "Layer",
    "Memory",
    "MemoryCapability",
    "MemoryNode",
    "MissingExtraError",
    "NotFoundError",
    "RecallConfig",
    "RecallResult",
    "Scope",
    "ScriptedModel",
    "SleepConsolidator",
    "StoreError",
    "StoreFailedError",
    "StoreUnavailableError",
    "causal_scope",
    "demo_model",
    "open_memory",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
