"""The API's reads and writes, one repository per concern, each the only code of its concern
that talks to the connection: keys and ledgers (shared with MCP, in
:mod:`hippograph.app.access`), memories, the graph around them, scopes, and export.
:class:`ApiRepository` holds one of each over one connection."""

from __future__ import annotations

from hippograph.app.access.repository import KeyRepository
from hippograph.app.api.queries import SCHEMA_QUERIES, ApiQuery
from hippograph.app.api.repository.export import ExportRepository
from hippograph.app.api.repository.graph import GraphRepository
from hippograph.app.api.repository.memories import MemoryFilter, MemoryRepository
from hippograph.app.api.repository.rows import LayerCount, Neighbour, ScopeRow, Subgraph
from hippograph.app.api.repository.scopes import ScopeCountKey, ScopeRepository
from hippograph.store.connection import Neo4jConnection

__all__ = [
    "ApiRepository",
    "ExportRepository",
    "GraphRepository",
    "LayerCount",
    "MemoryFilter",
    "MemoryRepository",
    "Neighbour",
    "ScopeCountKey",
    "ScopeRepository",
    "ScopeRow",
    "Subgraph",
]


class ApiRepository:
    """The API's repositories over one connection."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn
        self.keys = KeyRepository(conn)
        self.memories = MemoryRepository(conn)
        self.graph = GraphRepository(conn)
        self.scopes = ScopeRepository(conn)
        self.exports = ExportRepository(conn)

    async def apply_schema(self) -> None:
        """The key store's constraints and the API's own index (all ``IF NOT EXISTS``)."""
        await self.keys.apply_schema()
        for query in SCHEMA_QUERIES:
            await self.conn.run_autocommit(query)

    async def ping(self) -> None:
        await self.conn.read(ApiQuery.GET_SCOPE, key="")
