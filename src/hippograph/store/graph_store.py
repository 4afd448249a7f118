"""The graph store: every operation of the GraphBackend and VectorBackend
protocols over one Neo4j database, each one a catalogued query in a managed transaction.

Visibility: a read at scope P returns memories whose ``scope_key`` is in
``P.ancestor_keys()`` (exact membership). Ownership: updates and deletes touch only memories
of P or of scopes below it. Every input is validated before anything is written.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hippograph.cues import Cue
from hippograph.errors import ConflictError, InvalidInputError, NotFoundError, validation_errors
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship, check_id, now
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection
from hippograph.store.erase import EraseProgress, erase_subtree
from hippograph.store.filters import NodeFilter
from hippograph.store.mapping import (
    edge_to_props,
    layer_label,
    node_to_props,
    props_to_edge,
    props_to_node,
    scope_rows,
    update_params,
    upsert_rows,
)
from hippograph.store.queries import MemoryQuery as Q
from hippograph.store.schema import migrate
from hippograph.store.scope_gone import ScopeGoneError, write_into
from hippograph.store.transaction import Row, WriteTransaction
from hippograph.store.vector_search import scoped_vector_search

_IMMUTABLE = frozenset({"id", "layer", "scope_key", "created_at"})
_NO_LIMIT = 2**62


class _Deleted(Row):
    deleted: bool | int
    edges: int = 0


class _Removed(Row):
    removed: int


class _Count(Row):
    count: int


class _Renewed(Row):
    renewed: int


class _Written(Row):
    """An upserted id: whether it belongs to the writing scope, and whether it is new."""

    id: str
    ours: bool
    created: bool = False


class _Upserted(Row):
    """A memory ``upsert_nodes`` wrote or found: whether it belongs to the writing scope."""

    id: str
    ours: bool


class _EdgeRow(Row):
    """An upserted edge's properties with its type and ends (``source``, ``target``)."""

    r: dict[str, Any]


@dataclass(frozen=True, slots=True)
class VectorHit:
    """One vector-search result: cosine mapped to [0, 1] as Neo4j's index reports it."""

    id: str
    score: float


class GraphStore:
    """Async graph + vector store over one Neo4j connection."""

    KNOWN_SCOPES_CAP = 10_000
    """Scope keys remembered as written (to skip their upsert); the set starts over when full."""

    def __init__(self, conn: Neo4jConnection, *, vector_fetch_k: int = 100) -> None:
        self.conn = conn
        self.vector_fetch_k = vector_fetch_k
        self._known_scopes: set[str] = set()

    @classmethod
    async def open(
        cls,
        uri: str,
        *,
        user: str = "neo4j",
        password: str | None = None,
        database: str = "neo4j",
        apply_schema: bool = True,
    ) -> GraphStore:
        """Connect, apply the schema (idempotent) when asked, and wrap the connection."""
        conn = await Neo4jConnection.connect(uri, user=user, password=password, database=database)
        try:
            if apply_schema:
                await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def close(self) -> None:
        """Close the driver."""
        await self.conn.close()

    # -- scopes --------------------------------------------------------------------------
    async def ensure_scope(self, scope: Scope) -> None:
        """Create the Scope nodes of ``scope`` and its ancestors (cached per process)."""
        if scope.key in self._known_scopes:
            return
        await self.conn.write(Q.UPSERT_SCOPES, scopes=scope_rows(scope))
        if len(self._known_scopes) >= self.KNOWN_SCOPES_CAP:  # a long-lived process sees endless scopes
            self._known_scopes.clear()
        self._known_scopes.update(scope.ancestor_keys())

    def forget_known(self, scope: Scope) -> None:
        """Drop ``scope`` and its ancestors from the per-process cache (any may be erased)."""
        self._known_scopes.difference_update(scope.ancestor_keys())

    # -- nodes ---------------------------------------------------------------------------
    async def add_node(self, scope: Scope, node: MemoryNode) -> MemoryNode:
        return (await self.add_nodes(scope, [node]))[0]

    async def add_nodes(
        self,
        scope: Scope,
        nodes: Sequence[MemoryNode],
        cues: Mapping[str, Sequence[Cue]] | None = None,
        *,
        edges: Sequence[MemoryEdge] = (),
    ) -> list[MemoryNode]:
        """Write memories (and their cues) into ``scope`` in one transaction. Idempotent by
        id: writing an id that already exists in this scope keeps the stored memory; an id
        used in another scope raises ConflictError and writes nothing. ``edges`` (each end one
        of ``nodes`` or a memory visible from ``scope``) are added in the same transaction, as
        :meth:`add_edge` adds them; an end that is neither raises NotFoundError and writes
        nothing."""
        if not nodes:
            return []
        stored = [node.model_copy(update={"scope_key": scope.key}) for node in nodes]
        rows, cue_table = upsert_rows(scope, stored, cues or {})
        params = {"scope_key": scope.key, "rows": rows, "cues": cue_table, "now": now()}
        edge_params = _edge_params(scope, edges, increment=0.0) if edges else None

        async def work(tx: WriteTransaction) -> None:
            written = await tx.rows_as(Q.UPSERT_NODES, _Upserted, **params, tx_token=uuid.uuid4().hex)
            if not written:  # no Scope node: erased since this process last created it
                raise ScopeGoneError(scope.key)
            foreign = [w.id for w in written if not w.ours]
            if foreign:
                raise ConflictError(f"ids already used in another scope: {foreign[:5]}")
            if edge_params is not None:
                ends = await tx.rows_as(Q.UPSERT_EDGES, _EdgeRow, **edge_params)
                _check_ends(scope, edges, [e.r for e in ends])

        await write_into(self, scope, lambda: self.conn.write_tx(work))
        return stored

    async def get_node(self, scope: Scope, node_id: str, *, with_embedding: bool = False) -> MemoryNode | None:
        check_id(node_id, "node_id")
        rows = await self.conn.read(
            Q.GET_NODE, id=node_id, visible=scope.ancestor_keys(), with_embedding=with_embedding
        )
        return props_to_node(rows[0]["m"]) if rows else None

    async def get_nodes(self, scope: Scope, ids: Sequence[str], *, with_embedding: bool = False) -> list[MemoryNode]:
        for i, node_id in enumerate(ids):
            check_id(node_id, f"ids[{i}]")
        rows = await self.conn.read(
            Q.GET_NODES, ids=list(ids), visible=scope.ancestor_keys(), with_embedding=with_embedding
        )
        return [props_to_node(r["m"]) for r in rows]

    async def update_node(self, scope: Scope, node_id: str, updates: dict[str, Any]) -> MemoryNode:
        """Partial update of an owned memory; fields are validated against MemoryNode."""
        check_id(node_id, "node_id")
        bad = sorted(set(updates) & _IMMUTABLE)
        if bad:
            raise InvalidInputError(f"updates.{bad[0]}", "cannot be changed after creation")
        unknown = sorted(set(updates) - set(MemoryNode.model_fields))
        if unknown:
            raise InvalidInputError(f"updates.{unknown[0]}", "is not a memory field")
        current = await self.get_node(scope, node_id)
        if current is None:
            raise NotFoundError(f"memory {node_id} is not visible from {scope.key}")
        with validation_errors("updates", depth=1):
            merged = MemoryNode.model_validate({**current.model_dump(), **updates, "updated_at": now()})
        props = node_to_props(merged, Scope.parse(current.scope_key))
        changed = {k: v for k, v in props.items() if k in updates or k in ("updated_at", "search_text", "scope_tag")}
        for key in updates:  # explicit None clears a property
            changed.setdefault(key, None)
        rows = await self.conn.write(Q.UPDATE_NODE, id=node_id, **update_params(changed), **_owned(scope))
        if not rows:
            raise NotFoundError(f"memory {node_id} is not owned by {scope.key} (it may be an ancestor's)")
        return props_to_node(rows[0]["m"])

    async def renew_validity(self, scope: Scope, node_ids: Sequence[str], *, now: float) -> int:
        """Push ``valid_until`` of owned memories that have a ``ttl`` to ``now`` plus that ttl;
        how many were renewed. Memories already past their ``valid_until``, superseded or
        retracted stay as they are; ``updated_at`` does not move."""
        ids = [check_id(i, "node_ids") for i in node_ids]
        if not ids:
            return 0
        rows = await self.conn.write_as(Q.UPDATE_VALIDITY, _Renewed, ids=ids, now=now, **_owned(scope))
        return rows[0].renewed if rows else 0

    async def delete_node(self, scope: Scope, node_id: str, cascade: bool = False) -> bool:
        """Delete an owned memory. Without ``cascade`` a memory with edges raises ConflictError."""
        check_id(node_id, "node_id")
        rows = await self.conn.write_as(Q.DELETE_NODE, _Deleted, id=node_id, cascade=cascade, **_owned(scope))
        if not rows:
            return False
        if not rows[0].deleted:
            raise ConflictError(f"memory {node_id} has {rows[0].edges} edges; pass cascade=True")
        return True

    async def query_nodes(
        self,
        scope: Scope,
        filters: NodeFilter | dict[str, Any] | None = None,
        limit: int | None = 50,
        *,
        with_embedding: bool = False,
    ) -> list[MemoryNode]:
        """What ``scope`` may see: its own memories and its ancestors'."""
        params = NodeFilter.parse(filters).params()
        rows = await self.conn.read(
            Q.SEARCH_NODES, visible=scope.ancestor_keys(), limit=_limit(limit), with_embedding=with_embedding, **params
        )
        return [props_to_node(r["m"]) for r in rows]

    async def query_subtree(
        self,
        scope: Scope,
        filters: NodeFilter | dict[str, Any] | None = None,
        limit: int | None = None,
        *,
        with_embedding: bool = False,
    ) -> list[MemoryNode]:
        """The descendant read: memories of ``scope`` and every scope below it."""
        params = NodeFilter.parse(filters).params()
        rows = await self.conn.read(
            Q.SEARCH_SUBTREE_NODES, scope_key=scope.key, limit=_limit(limit), with_embedding=with_embedding, **params
        )
        return [props_to_node(r["m"]) for r in rows]

    async def delete_subtree(self, scope: Scope, *, progress: EraseProgress | None = None) -> int:
        """Erase ``scope`` and everything below it, completely and at any size (see
        :mod:`hippograph.store.erase`); return the memory count. Resumes a crashed erase."""
        prefix = scope.subtree_prefix
        self._known_scopes = {k for k in self._known_scopes if k != scope.key and not k.startswith(prefix)}
        try:
            return await erase_subtree(self.conn, scope, now=now(), progress=progress)
        finally:
            self._known_scopes = {k for k in self._known_scopes if k != scope.key and not k.startswith(prefix)}

    # -- edges ---------------------------------------------------------------------------
    async def add_edge(self, scope: Scope, edge: MemoryEdge) -> MemoryEdge:
        """Create the edge unless (scope, source, target, relationship) exists; return it."""
        return (await self._merge_edges(scope, [edge], increment=0.0))[0]

    async def upsert_edge(self, scope: Scope, edge: MemoryEdge) -> MemoryEdge:
        """Insert, or add 1 to the weight of the existing edge (its id is kept)."""
        return (await self._merge_edges(scope, [edge], increment=1.0))[0]

    async def upsert_edges(
        self, scope: Scope, edges: Sequence[MemoryEdge], *, increment: float = 1.0
    ) -> list[MemoryEdge]:
        return await self._merge_edges(scope, edges, increment=increment)

    async def link(
        self, scope: Scope, source: str, target: str, relationship: Relationship | str, **fields: Any
    ) -> MemoryEdge:
        with validation_errors("edge", depth=1):
            edge = MemoryEdge(source=source, target=target, relationship=Relationship.parse(relationship), **fields)
        return await self.upsert_edge(scope, edge)

    async def _merge_edges(self, scope: Scope, edges: Sequence[MemoryEdge], *, increment: float) -> list[MemoryEdge]:
        if not edges:
            return []
        await self.ensure_scope(scope)
        records = await self.conn.write(Q.UPSERT_EDGES, **_edge_params(scope, edges, increment=increment))
        _check_ends(scope, edges, [r["r"] for r in records])
        return [props_to_edge(r["r"]) for r in records]

    async def delete_edge(self, scope: Scope, edge_id: str) -> bool:
        check_id(edge_id, "edge_id")
        rows = await self.conn.write_as(
            Q.DELETE_EDGE, _Deleted, id=edge_id, visible=scope.ancestor_keys(), scope_key=scope.key
        )
        return bool(rows and rows[0].deleted)

    async def get_neighbors(
        self,
        scope: Scope,
        node_id: str,
        relationship: Relationship | str | None = None,
        *,
        limit: int = 100,
        include_retracted: bool = False,
    ) -> list[tuple[MemoryNode, MemoryEdge]]:
        check_id(node_id, "node_id")
        rel = Relationship.parse(relationship).value if relationship is not None else None
        rows = await self.conn.read(
            Q.GET_NEIGHBORS,
            id=node_id,
            visible=scope.ancestor_keys(),
            relationship=rel,
            limit=limit,
            include_retracted=include_retracted,
        )
        return [(props_to_node(r["n"]), props_to_edge(r["r"])) for r in rows]

    async def traverse(self, scope: Scope, start: str, max_depth: int) -> list[MemoryNode]:
        """Breadth-first from ``start`` over visible memories, up to ``max_depth`` hops."""
        check_id(start, "start")
        if not 0 <= max_depth <= 10:
            raise InvalidInputError("max_depth", "must be between 0 and 10")
        seen = {start}
        frontier = [start]
        found: list[MemoryNode] = []
        for _ in range(max_depth):
            if not frontier:
                break
            rows = await self.conn.read(
                Q.GET_FRONTIER, frontier=frontier, seen=list(seen), visible=scope.ancestor_keys()
            )
            step = [props_to_node(r["n"]) for r in rows]
            found.extend(step)
            frontier = [n.id for n in step]
            seen.update(frontier)
        return found

    async def query_edges(
        self, scope: Scope, filters: dict[str, Any] | None = None, limit: int = 50, offset: int = 0
    ) -> list[MemoryEdge]:
        filters = dict(filters or {})
        rel = filters.pop("relationship", None)
        if filters:
            raise InvalidInputError(f"filters.{next(iter(filters))}", "unknown edge filter (supported: relationship)")
        if limit < 0 or offset < 0:
            raise InvalidInputError("limit", "limit and offset must be ≥ 0")
        relationship = Relationship.parse(rel).value if rel is not None else None
        rows = await self.conn.read(
            Q.SEARCH_EDGES, visible=scope.ancestor_keys(), relationship=relationship, limit=limit, offset=offset
        )
        return [props_to_edge(r["r"]) for r in rows]

    # -- vectors -------------------------------------------------------------------------
    async def add_vectors(
        self,
        scope: Scope,
        ids: Sequence[str],
        embeddings: Sequence[Sequence[float]],
        metadatas: Sequence[dict[str, Any]] | None = None,
        documents: Sequence[str] | None = None,
        *,
        layer: Layer = Layer.SEMANTIC,
    ) -> None:
        """Set embeddings on memories of ``scope``; create missing ones as ``layer`` memories."""
        if len(ids) != len(embeddings):
            raise InvalidInputError("embeddings", "must have one vector per id")
        metadatas = metadatas or [{} for _ in ids]
        documents = documents or ["" for _ in ids]
        if not len(metadatas) == len(documents) == len(ids):
            raise InvalidInputError("metadatas", "metadatas and documents must match ids")
        rows = []
        for i, (node_id, vec, meta, doc) in enumerate(zip(ids, embeddings, metadatas, documents, strict=True)):
            with validation_errors(f"vectors[{i}]", depth=1):
                node = MemoryNode(
                    id=node_id,
                    layer=layer,
                    content=doc,
                    properties=dict(meta),
                    embedding=[float(x) for x in vec],
                    label=str(meta.get("label", doc[:100])),
                )
            rows.append({"id": node.id, "layer_label": layer_label(layer), "props": node_to_props(node, scope)})

        async def write() -> list[_Written]:
            written = await self.conn.write_as(Q.UPSERT_VECTORS, _Written, scope_key=scope.key, rows=rows)
            if rows and not written:  # no Scope node: erased since this process created it
                raise ScopeGoneError(scope.key)
            return written

        records = await write_into(self, scope, write)
        foreign = [r.id for r in records if not r.ours]
        if foreign:
            raise ConflictError(f"ids belong to another scope and were left unchanged: {foreign[:5]}")

    async def search_vectors(
        self, scope: Scope, vector: Sequence[float], top_k: int = 5, *, layers: Sequence[Layer] | None = None
    ) -> list[VectorHit]:
        """Top-k by cosine among the memories ``scope`` may see, correct under the scope filter
        (see :mod:`hippograph.store.vector_search`)."""
        if top_k <= 0:
            return []
        rows = await scoped_vector_search(
            self.conn,
            Q.SEARCH_VECTOR_SCOPED,
            Q.SEARCH_VECTOR_EXACT,
            lts_query=Q.SEARCH_VECTOR_SCOPED_LTS,
            k=top_k,
            fetch_k=max(self.vector_fetch_k, 4 * top_k),
            vector=[float(x) for x in vector],
            visible=scope.ancestor_keys(),
            chain=scope.chain_points(),
            floor="",
            layers=[layer.value for layer in layers] if layers else None,
        )
        return [VectorHit(r["id"], float(r["score"])) for r in rows]

    async def delete_vectors(self, scope: Scope, ids: Sequence[str]) -> int:
        for i, node_id in enumerate(ids):
            check_id(node_id, f"ids[{i}]")
        rows = await self.conn.write_as(Q.DELETE_VECTORS, _Removed, ids=list(ids), scope_key=scope.key)
        return rows[0].removed if rows else 0

    async def count_vectors(self, scope: Scope) -> int:
        rows = await self.conn.read_as(Q.GET_VECTOR_COUNT, _Count, visible=scope.ancestor_keys())
        return rows[0].count

    async def delete_subtree_vectors(self, scope: Scope) -> int:
        rows = await self.conn.write_as(Q.DELETE_SUBTREE_VECTORS, _Removed, scope_key=scope.key)
        return rows[0].removed if rows else 0


def _edge_params(scope: Scope, edges: Sequence[MemoryEdge], *, increment: float) -> dict[str, Any]:
    """The parameters of ``upsert_edges``."""
    rows = [
        {
            "source": e.source,
            "target": e.target,
            "relationship": e.relationship.value,
            "props": {**edge_to_props(e), "scope_key": scope.key},
        }
        for e in edges
    ]
    return {"rows": rows, "visible": scope.ancestor_keys(), "scope_key": scope.key, "increment": increment}


def _check_ends(scope: Scope, edges: Sequence[MemoryEdge], written: Sequence[Mapping[str, Any]]) -> None:
    """NotFoundError naming the edges ``upsert_edges`` wrote no row for (an end not visible)."""
    if len(written) < len(edges):
        found = {(r["source"], r["target"]) for r in written}
        missing = [(e.source, e.target) for e in edges if (e.source, e.target) not in found]
        raise NotFoundError(f"edge ends not visible from {scope.key}: {missing[:5]}")


def _owned(scope: Scope) -> dict[str, str]:
    return {"scope_key": scope.key, "subtree_prefix": scope.subtree_prefix}


def _limit(limit: int | None) -> int:
    if limit is None:
        return _NO_LIMIT
    if limit < 0:
        raise InvalidInputError("limit", "must be ≥ 0")
    return limit
