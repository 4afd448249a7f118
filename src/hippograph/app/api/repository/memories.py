"""Memory listings and details: keyset pages with filters, counts, memories by id and the
audit entries about them, all limited to what the asker reaches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hippograph.app.access.reach import Reach
from hippograph.app.api.queries import ApiQuery
from hippograph.app.api.repository.rows import AuditRow, CountRow, MemoryRow
from hippograph.audit import AuditEntry
from hippograph.models import Layer, MemoryNode
from hippograph.store.connection import Neo4jConnection


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Optional filters of a memory listing (None / empty: any)."""

    layers: tuple[Layer, ...] = ()
    retracted: bool | None = None
    superseded: bool | None = None
    session_id: str | None = None
    created_after: float | None = None
    created_before: float | None = None
    text: str | None = None

    def params(self) -> dict[str, Any]:
        return {
            "layers": [layer.value for layer in self.layers],
            "retracted": self.retracted,
            "superseded": self.superseded,
            "session_id": self.session_id,
            "created_after": self.created_after,
            "created_before": self.created_before,
            "text": self.text.lower() if self.text else None,
        }


class MemoryRepository:
    """Reads of memories; every method is one Cypher call."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    async def page(
        self,
        listing: Reach,
        where: MemoryFilter,
        *,
        ascending: bool,
        after: tuple[float, str] | None,
        limit: int,
    ) -> list[MemoryNode]:
        query = ApiQuery.SEARCH_MEMORIES_ASC if ascending else ApiQuery.SEARCH_MEMORIES_DESC
        rows = await self.conn.read_as(
            query,
            MemoryRow,
            **listing.params(),
            **where.params(),
            after_created_at=after[0] if after else None,
            after_id=after[1] if after else None,
            limit=limit,
        )
        return [r.m for r in rows]

    async def count(self, listing: Reach, where: MemoryFilter) -> int:
        rows = await self.conn.read_as(ApiQuery.GET_MEMORY_COUNT, CountRow, **listing.params(), **where.params())
        return rows[0].total

    async def by_ids(self, reach: Reach, ids: Sequence[str]) -> dict[str, MemoryNode]:
        rows = await self.conn.read_as(ApiQuery.GET_MEMORIES, MemoryRow, ids=list(ids), **reach.params())
        return {r.m.id: r.m for r in rows}

    async def audit_entries(self, reach: Reach, ids: Sequence[str], limit: int) -> dict[str, list[AuditEntry]]:
        rows = await self.conn.read_as(
            ApiQuery.SEARCH_MEMORY_AUDIT, AuditRow, ids=list(ids), limit=limit, **reach.params()
        )
        return {r.id: r.entries for r in rows}
