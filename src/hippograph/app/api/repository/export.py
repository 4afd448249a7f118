"""Batches of a subtree's memories and edges for export, by id."""

from __future__ import annotations

from hippograph.app.api.queries import ApiQuery
from hippograph.app.api.repository.rows import EdgeRow, MemoryRow
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.store.connection import Neo4jConnection


class ExportRepository:
    """Reads for export; every method is one Cypher call."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    async def memories(
        self, key: str, prefix: str, after_id: str | None, limit: int, with_embedding: bool
    ) -> list[MemoryNode]:
        rows = await self.conn.read_as(
            ApiQuery.SEARCH_EXPORT_MEMORIES,
            MemoryRow,
            key=key,
            prefix=prefix,
            after_id=after_id,
            limit=limit,
            with_embedding=with_embedding,
        )
        return [r.m for r in rows]

    async def edges(self, key: str, prefix: str, after_id: str | None, limit: int) -> list[MemoryEdge]:
        rows = await self.conn.read_as(
            ApiQuery.SEARCH_EXPORT_EDGES, EdgeRow, key=key, prefix=prefix, after_id=after_id, limit=limit
        )
        return [r.r for r in rows]

    async def stored_nodes(self) -> int:
        """Nodes in the database besides the schema record (0: an empty database)."""
        rows = await self.conn.read(ApiQuery.GET_STORED_NODE_COUNT)
        return int(rows[0]["nodes"])
