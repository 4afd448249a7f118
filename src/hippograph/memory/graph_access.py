"""The memory graph by id, for hosts and for the components that live beside the memory in
its database (consolidation, API keys, integrations): read and update memories and links by
id, run a locked write, and the background work :meth:`~hippograph.memory.Memory.forget`
waits for. :class:`~hippograph.memory.Memory` has them; its store and recall engine stay
private to it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from hippograph.layers.base import MemoryServices
from hippograph.layers.pending import PendingWrites
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.retrieval.engine import RecallEngine
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection
from hippograph.store.filters import NodeFilter
from hippograph.store.graph_store import GraphStore
from hippograph.store.locked import LockedTx, run_locked

__all__ = ["GraphAccess"]

T = TypeVar("T")


class GraphAccess:
    """The by-id verbs and ports of :class:`~hippograph.memory.Memory` (its base class)."""

    _store: GraphStore
    _engine: RecallEngine
    _services: MemoryServices
    _pending: PendingWrites

    @property
    def connection(self) -> Neo4jConnection:
        """The database this memory lives in, for components that keep their own records
        beside it (a :class:`~hippograph.SleepConsolidator`, API keys); memories are written
        through this memory's methods."""
        return self._store.conn

    def now(self) -> float:
        """The memory's clock (epoch seconds)."""
        return self._services.clock()

    async def embed(self, text: str) -> list[float]:
        """``text``'s vector from the memory's embedder."""
        return await self._services.embedder.embed(text)

    # -- by id -----------------------------------------------------------------------------
    async def get_node(self, scope: Scope, node_id: str) -> MemoryNode | None:
        """The memory ``node_id`` if ``scope`` sees it."""
        return await self._store.get_node(scope, node_id)

    async def get_nodes(self, scope: Scope, ids: Sequence[str]) -> list[MemoryNode]:
        """The memories of ``ids`` that ``scope`` sees."""
        return await self._store.get_nodes(scope, ids)

    async def update_node(self, scope: Scope, node_id: str, updates: dict[str, Any]) -> MemoryNode:
        """Partial update of a memory ``scope`` owns; fields are validated against MemoryNode."""
        return await self._store.update_node(scope, node_id, updates)

    async def link(self, scope: Scope, edges: Sequence[MemoryEdge]) -> list[MemoryEdge]:
        """Write ``edges`` between memories ``scope`` sees, as given (weights not strengthened)."""
        return await self._store.upsert_edges(scope, edges, increment=0.0)

    async def query_subtree(
        self, scope: Scope, filters: NodeFilter | dict[str, Any] | None = None, *, limit: int | None = None
    ) -> list[MemoryNode]:
        """The memories of ``scope`` and every scope below it that pass ``filters``."""
        return await self._store.query_subtree(scope, filters, limit=limit)

    async def renew_validity(self, scope: Scope, node_ids: Sequence[str], *, now: float) -> int:
        """Push ``valid_until`` of owned memories that have a ``ttl`` to ``now`` plus that ttl."""
        return await self._store.renew_validity(scope, node_ids, now=now)

    async def run_locked(self, scope: Scope, locks: Sequence[str], work: Callable[[LockedTx], Awaitable[T]]) -> T:
        """Run ``work`` in one write transaction holding the ``locks`` of ``scope``."""
        return await run_locked(self._store, scope, locks, work)

    # -- background work -------------------------------------------------------------------
    def track(self, scope: Scope, task: asyncio.Task[object]) -> None:
        """Register background work that writes into ``scope``: :meth:`forget` waits for it."""
        self._pending.track(scope, task)

    async def drain(self) -> None:
        """Wait for recall's background bookkeeping (access counts): for tests and shutdown."""
        await self._engine.drain()

    async def recent_scope(self) -> str | None:
        """The key of the scope written most recently (None: an empty database)."""
        return await self._engine.repo.recent_scope()
