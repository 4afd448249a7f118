"""The one API key an MCP server acts for: its memory, its consolidator and the key store.

The token is kept in memory only (never logged, never in a tool's output). Every tool call
authenticates it again through the key store the API shares — revocation and the key's rate
limit apply at once — and resolves the scope the call names with the same rule as the API
(:meth:`Principal.target`): the key's scope or a scope below it; anything else is *not found*.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from hippograph.app.access.keys import Principal, Role
from hippograph.app.access.limits import authenticate
from hippograph.app.access.repository import KeyRepository
from hippograph.app.runtime import open_memory
from hippograph.app.settings import Settings
from hippograph.consolidation import SleepConsolidator
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.memory import Memory
from hippograph.scope import Scope


@dataclass(frozen=True)
class KeyBinding:
    memory: Memory
    consolidator: SleepConsolidator
    repo: KeyRepository
    token: str
    rate_limit: int

    async def principal(self) -> Principal:
        """The key's principal now (raises ApiAuthError when revoked, RateLimitedError when over)."""
        return await authenticate(self.repo, self.token, default_limit=self.rate_limit)

    async def target(self, scope: str | None, role: Role, namespace: str | None = None) -> Scope:
        """The scope a call acts on: ``scope`` (or the key's own when None), in ``namespace`` when
        given, if the key reaches it."""
        principal = await self.principal()
        assert principal.scope is not None  # a key's principal always has its scope
        return principal.target(scope or principal.scope.key, role, namespace=namespace)


@asynccontextmanager
async def open_binding(
    token: str, settings: Settings | None = None, *, embedder: EmbeddingProvider | None = None, rate_limit: int = 600
) -> AsyncIterator[KeyBinding]:
    """Connect (the configured Neo4j, else the local one), apply the key store's schema, check the key once
    up front (an unknown or revoked key fails here, before anything is served)."""
    async with open_memory(settings, embedder=embedder) as memory:
        repo = KeyRepository(memory.connection)
        await repo.apply_schema()
        binding = KeyBinding(memory, SleepConsolidator.for_memory(memory), repo, token, rate_limit)
        await binding.principal()
        yield binding
