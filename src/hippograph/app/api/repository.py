"""The only module of the API that talks to the connection: it runs :class:`ApiQuery` files and
maps their records to domain values (memories, edges, audit entries, key records)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hippograph.app.api.queries import SCHEMA_QUERIES, ApiQuery
from hippograph.app.api.reach import Reach
from hippograph.audit import AuditEntry
from hippograph.models import Layer, MemoryEdge, MemoryNode
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection

_NODE_FIELDS = frozenset(MemoryNode.model_fields)
_EDGE_FIELDS = frozenset(MemoryEdge.model_fields)
_JSON_FIELDS = ("properties", "retraction")


def to_node(props: dict[str, Any]) -> MemoryNode:
    """A record's memory map (``m {.*}``) as a :class:`MemoryNode`."""
    data = {k: v for k, v in props.items() if k in _NODE_FIELDS}
    for key in _JSON_FIELDS:
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return MemoryNode.model_validate(data)


def to_edge(props: dict[str, Any]) -> MemoryEdge:
    return MemoryEdge.model_validate({k: v for k, v in props.items() if k in _EDGE_FIELDS})


def to_audit(props: dict[str, Any]) -> AuditEntry:
    data = dict(props)
    if isinstance(data.get("detail"), str):
        data["detail"] = json.loads(data["detail"])
    return AuditEntry.model_validate({k: v for k, v in data.items() if k in AuditEntry.model_fields})


@dataclass(frozen=True, slots=True)
class KeyRecord:
    id: str
    name: str
    scope_key: str
    role: str
    rate_limit: int | None
    created_at: float
    revoked_at: float | None
    last_used_at: float | None

    @classmethod
    def of(cls, row: dict[str, Any]) -> KeyRecord:
        return cls(
            id=row["id"],
            name=row.get("name") or "",
            scope_key=row["scope_key"],
            role=row["role"],
            rate_limit=row.get("rate_limit"),
            created_at=row["created_at"],
            revoked_at=row.get("revoked_at"),
            last_used_at=row.get("last_used_at"),
        )


@dataclass(frozen=True, slots=True)
class Neighbour:
    node: MemoryNode
    edge: MemoryEdge
    outgoing: bool


@dataclass(frozen=True, slots=True)
class Subgraph:
    nodes: list[MemoryNode]
    edges: list[MemoryEdge]


@dataclass(frozen=True, slots=True)
class ScopeRow:
    key: str
    kind: str
    id: str
    depth: int


@dataclass(frozen=True, slots=True)
class LayerCount:
    layer: Layer
    total: int
    retracted: int
    superseded: int


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


class ApiRepository:
    """The API's reads and writes; every method is one Cypher call."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    async def apply_schema(self) -> None:
        for query in SCHEMA_QUERIES:
            await self.conn.run_autocommit(query)

    async def ping(self) -> None:
        await self.conn.read(ApiQuery.GET_SCOPE, key="")

    # -- keys, ledger, budgets ---------------------------------------------------------
    async def insert_key(self, key: dict[str, Any]) -> KeyRecord:
        rows = await self.conn.write(ApiQuery.UPSERT_API_KEY, key=key)
        return KeyRecord.of(rows[0]["key"])

    async def list_keys(self, scope_key: str | None, prefix: str | None, include_revoked: bool) -> list[KeyRecord]:
        rows = await self.conn.read(
            ApiQuery.SEARCH_API_KEYS, scope_key=scope_key, prefix=prefix, include_revoked=include_revoked
        )
        return [KeyRecord.of(r["key"]) for r in rows]

    async def revoke_key(self, key_id: str, now: float) -> KeyRecord | None:
        rows = await self.conn.write(ApiQuery.UPDATE_API_KEY_REVOKED, id=key_id, now=now)
        return KeyRecord.of(rows[0]["key"]) if rows else None

    async def delete_keys(self, scope: Scope) -> int:
        """Delete the keys bound to ``scope`` or below it (part of erasing the scope)."""
        rows = await self.conn.write(
            ApiQuery.DELETE_SCOPE_API_KEYS, scope_key=scope.key, subtree_prefix=scope.subtree_prefix
        )
        return int(rows[0]["deleted"]) if rows else 0

    async def use_key(self, token_hash: str, window: float, now: float) -> tuple[KeyRecord, int] | None:
        rows = await self.conn.write(ApiQuery.UPDATE_API_KEY_USAGE, hash=token_hash, window=window, now=now)
        return (KeyRecord.of(rows[0]["key"]), int(rows[0]["used"])) if rows else None

    async def tokens_used(self, ledger_id: str) -> int:
        rows = await self.conn.read(ApiQuery.GET_TOKEN_BUDGET, id=ledger_id)
        return int(rows[0]["used"]) if rows else 0

    async def spend_tokens(self, ledger_id: str, scope_key: str, day: str, tokens: int, now: float) -> int:
        rows = await self.conn.write(
            ApiQuery.UPDATE_TOKEN_BUDGET, id=ledger_id, scope_key=scope_key, day=day, tokens=tokens, now=now
        )
        return int(rows[0]["used"])

    # -- memories ------------------------------------------------------------------------
    async def memory_page(
        self,
        listing: Reach,
        where: MemoryFilter,
        *,
        ascending: bool,
        after: tuple[float, str] | None,
        limit: int,
    ) -> list[MemoryNode]:
        query = ApiQuery.SEARCH_MEMORIES_ASC if ascending else ApiQuery.SEARCH_MEMORIES_DESC
        rows = await self.conn.read(
            query,
            **listing.params(),
            **where.params(),
            after_created_at=after[0] if after else None,
            after_id=after[1] if after else None,
            limit=limit,
        )
        return [to_node(r["m"]) for r in rows]

    async def memory_count(self, listing: Reach, where: MemoryFilter) -> int:
        rows = await self.conn.read(ApiQuery.GET_MEMORY_COUNT, **listing.params(), **where.params())
        return int(rows[0]["total"])

    async def memories(self, reach: Reach, ids: Sequence[str]) -> dict[str, MemoryNode]:
        rows = await self.conn.read(ApiQuery.GET_MEMORIES, ids=list(ids), **reach.params())
        nodes = [to_node(r["m"]) for r in rows]
        return {n.id: n for n in nodes}

    async def neighbours(self, reach: Reach, ids: Sequence[str], limit: int) -> dict[str, list[Neighbour]]:
        rows = await self.conn.read(ApiQuery.SEARCH_NEIGHBOURS, ids=list(ids), limit=limit, **reach.params())
        return {
            r["id"]: [Neighbour(to_node(x["node"]), to_edge(x["edge"]), bool(x["outgoing"])) for x in r["rows"]]
            for r in rows
        }

    async def supersession_chains(self, reach: Reach, ids: Sequence[str]) -> dict[str, list[MemoryNode]]:
        rows = await self.conn.read(ApiQuery.SEARCH_SUPERSESSION_CHAINS, ids=list(ids), **reach.params())
        return {r["id"]: [to_node(c) for c in r["chain"]] for r in rows}

    async def audit_entries(self, reach: Reach, ids: Sequence[str], limit: int) -> dict[str, list[AuditEntry]]:
        rows = await self.conn.read(ApiQuery.SEARCH_MEMORY_AUDIT, ids=list(ids), limit=limit, **reach.params())
        return {r["id"]: [to_audit(e) for e in r["entries"]] for r in rows}

    async def neighbourhood(self, reach: Reach, node_id: str, hops: int, limit: int) -> Subgraph | None:
        rows = await self.conn.read(ApiQuery.GET_NEIGHBOURHOOD, id=node_id, hops=hops, limit=limit, **reach.params())
        if not rows:
            return None
        return Subgraph([to_node(n) for n in rows[0]["nodes"]], [to_edge(e) for e in rows[0]["edges"]])

    async def paths(self, reach: Reach, from_id: str, to_id: str, max_hops: int, limit: int) -> list[Subgraph]:
        rows = await self.conn.read(
            ApiQuery.SEARCH_PATHS, from_id=from_id, to_id=to_id, max_hops=max_hops, limit=limit, **reach.params()
        )
        return [Subgraph([to_node(n) for n in r["nodes"]], [to_edge(e) for e in r["edges"]]) for r in rows]

    # -- scopes and stats -------------------------------------------------------------------
    async def scope(self, key: str) -> ScopeRow | None:
        rows = await self.conn.read(ApiQuery.GET_SCOPE, key=key)
        return ScopeRow(**rows[0]["scope"]) if rows else None

    async def scope_children(self, key: str, after: str | None, limit: int) -> list[ScopeRow]:
        rows = await self.conn.read(ApiQuery.SEARCH_SCOPE_CHILDREN, key=key, after=after, limit=limit)
        return [ScopeRow(**r["scope"]) for r in rows]

    async def scopes(self, key: str, prefix: str, after: str | None, limit: int) -> list[ScopeRow]:
        rows = await self.conn.read(ApiQuery.SEARCH_SCOPES, key=key, prefix=prefix, after=after, limit=limit)
        return [ScopeRow(**r["scope"]) for r in rows]

    async def scope_counts(
        self, scopes: Sequence[tuple[str, str | None]]
    ) -> dict[tuple[str, str | None], list[LayerCount]]:
        rows = await self.conn.read(ApiQuery.GET_SCOPE_COUNTS, scopes=[{"key": k, "prefix": p} for k, p in scopes])
        by_key = {
            r["key"]: [
                LayerCount(Layer(x["layer"]), int(x["total"]), int(x["retracted"]), int(x["superseded"]))
                for x in r["layers"]
                if x["layer"] is not None
            ]
            for r in rows
        }
        return {(k, p): by_key.get(k, []) for k, p in scopes}

    async def growth(self, key: str, prefix: str, since: float) -> list[tuple[int, int]]:
        rows = await self.conn.read(ApiQuery.GET_SCOPE_GROWTH, key=key, prefix=prefix, since=since)
        return [(int(r["day"]), int(r["created"])) for r in rows]

    async def pending_links(self, key: str, prefix: str) -> int:
        rows = await self.conn.read(ApiQuery.GET_PENDING_LINK_COUNT, key=key, prefix=prefix)
        return int(rows[0]["pending"])

    # -- export ------------------------------------------------------------------------------
    async def export_memories(
        self, key: str, prefix: str, after_id: str | None, limit: int, with_embedding: bool
    ) -> list[MemoryNode]:
        rows = await self.conn.read(
            ApiQuery.SEARCH_EXPORT_MEMORIES,
            key=key,
            prefix=prefix,
            after_id=after_id,
            limit=limit,
            with_embedding=with_embedding,
        )
        return [to_node(r["m"]) for r in rows]

    async def export_edges(self, key: str, prefix: str, after_id: str | None, limit: int) -> list[MemoryEdge]:
        rows = await self.conn.read(
            ApiQuery.SEARCH_EXPORT_EDGES, key=key, prefix=prefix, after_id=after_id, limit=limit
        )
        return [to_edge(r["r"]) for r in rows]
