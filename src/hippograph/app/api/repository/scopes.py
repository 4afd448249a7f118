"""Scopes and what they hold: one scope, its children, the scopes a key acts on, memory
counts per layer, growth per day and pending links."""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.app.api.queries import ApiQuery
from hippograph.app.api.repository.rows import GrowthRow, LayerCount, PendingRow, ScopeCountsRow, ScopeRecord, ScopeRow
from hippograph.store.connection import Neo4jConnection

ScopeCountKey = tuple[str, str | None]
"""A scope key and, to count its whole subtree, its subtree prefix (None: its own memories)."""


class ScopeRepository:
    """Reads of scopes and their statistics; every method is one Cypher call."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    async def get(self, key: str) -> ScopeRow | None:
        rows = await self.conn.read_as(ApiQuery.GET_SCOPE, ScopeRecord, key=key)
        return rows[0].scope if rows else None

    async def children(self, key: str, after: str | None, limit: int) -> list[ScopeRow]:
        rows = await self.conn.read_as(ApiQuery.SEARCH_SCOPE_CHILDREN, ScopeRecord, key=key, after=after, limit=limit)
        return [r.scope for r in rows]

    async def within(self, key: str, prefix: str, after: str | None, limit: int) -> list[ScopeRow]:
        """``key`` and every scope under ``prefix``, in key order."""
        rows = await self.conn.read_as(
            ApiQuery.SEARCH_SCOPES, ScopeRecord, key=key, prefix=prefix, after=after, limit=limit
        )
        return [r.scope for r in rows]

    async def roots(self, after: str | None, limit: int) -> list[ScopeRow]:
        """The root scopes (tenants), in key order."""
        rows = await self.conn.read_as(ApiQuery.SEARCH_ROOT_SCOPES, ScopeRecord, after=after, limit=limit)
        return [r.scope for r in rows]

    async def counts(self, scopes: Sequence[ScopeCountKey]) -> dict[ScopeCountKey, list[LayerCount]]:
        rows = await self.conn.read_as(
            ApiQuery.GET_SCOPE_COUNTS, ScopeCountsRow, scopes=[{"key": k, "prefix": p} for k, p in scopes]
        )
        by_key = {r.key: r.layers for r in rows}
        return {(k, p): by_key.get(k, []) for k, p in scopes}

    async def growth(self, key: str, prefix: str, since: float) -> list[tuple[int, int]]:
        rows = await self.conn.read_as(ApiQuery.GET_SCOPE_GROWTH, GrowthRow, key=key, prefix=prefix, since=since)
        return [(r.day, r.created) for r in rows]

    async def pending_links(self, key: str, prefix: str) -> int:
        rows = await self.conn.read_as(ApiQuery.GET_PENDING_LINK_COUNT, PendingRow, key=key, prefix=prefix)
        return rows[0].pending
