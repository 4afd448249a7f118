"""The graph around memories: neighbours, supersession chains, neighbourhoods and paths, over
memories and edges the asker reaches."""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.app.access.reach import Reach
from hippograph.app.api.queries import ApiQuery
from hippograph.app.api.repository.rows import ChainRow, Neighbour, NeighboursRow, Subgraph
from hippograph.models import MemoryNode
from hippograph.store.connection import Neo4jConnection


class GraphRepository:
    """Reads of the memory graph; every method is one Cypher call."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    async def neighbours(self, reach: Reach, ids: Sequence[str], limit: int) -> dict[str, list[Neighbour]]:
        rows = await self.conn.read_as(
            ApiQuery.SEARCH_NEIGHBOURS, NeighboursRow, ids=list(ids), limit=limit, **reach.params()
        )
        return {r.id: r.rows for r in rows}

    async def supersession_chains(self, reach: Reach, ids: Sequence[str]) -> dict[str, list[MemoryNode]]:
        rows = await self.conn.read_as(ApiQuery.SEARCH_SUPERSESSION_CHAINS, ChainRow, ids=list(ids), **reach.params())
        return {r.id: r.chain for r in rows}

    async def neighbourhood(self, reach: Reach, node_id: str, hops: int, limit: int) -> Subgraph | None:
        rows = await self.conn.read_as(
            ApiQuery.GET_NEIGHBOURHOOD, Subgraph, id=node_id, hops=hops, limit=limit, **reach.params()
        )
        return rows[0] if rows else None

    async def paths(self, reach: Reach, from_id: str, to_id: str, max_hops: int, limit: int) -> list[Subgraph]:
        return await self.conn.read_as(
            ApiQuery.SEARCH_PATHS,
            Subgraph,
            from_id=from_id,
            to_id=to_id,
            max_hops=max_hops,
            limit=limit,
            **reach.params(),
        )
