"""The layers' storage boundary: the only layers module that talks to the connection.

The queries are the store's (``cypher/memory``); what the layers need beyond
:class:`~hippograph.store.graph_store.GraphStore`'s protocol methods lives here, typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hippograph.audit import AuditEntry, record_audit
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection, Row
from hippograph.store.graph_store import GraphStore
from hippograph.store.mapping import has_direction, props_to_node
from hippograph.store.queries import MemoryQuery as Q
from hippograph.store.scores import cosine_from_index
from hippograph.store.vector_search import scoped_vector_search

__all__ = ["LayerRepository", "TurnRows"]


@dataclass(frozen=True)
class TurnRows:
    """The rows of :meth:`LayerRepository.turn_reads`: each part None when not asked for."""

    working: list[MemoryNode] | None
    prospective: list[MemoryNode] | None
    persona: list[MemoryNode] | None


class _Count(Row):
    count: int


class _Links(Row):
    links: int


class _Written(Row):
    written: int


class _N(Row):
    n: int


class _Deleted(Row):
    deleted: int


class LayerRepository:
    """Catalogued reads and writes of the memory layers, over one store."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._conn: Neo4jConnection = store.conn

    async def nearest_own(self, scope: Scope, layer: Layer, vector: Sequence[float], k: int) -> dict[str, float]:
        """Cosine of the ``k`` memories of ``layer`` in exactly ``scope`` nearest ``vector``
        (none for the zero vector: it points nowhere)."""
        if not has_direction(vector):
            return {}
        rows = await scoped_vector_search(
            self._conn,
            Q.SEARCH_VECTOR_SCOPED,
            Q.SEARCH_VECTOR_EXACT,
            lts_query=Q.SEARCH_VECTOR_SCOPED_LTS,
            k=k,
            fetch_k=max(self.store.vector_fetch_k, 4 * k),
            vector=[float(x) for x in vector],
            visible=[scope.key],
            chain=[scope.chain_lo],
            floor=scope.chain_lo,  # this scope alone, not its ancestors
            layers=[layer.value],
        )
        return {r["id"]: cosine_from_index(float(r["score"])) for r in rows}

    async def own_nodes(self, scope: Scope, layer: Layer) -> list[MemoryNode]:
        """The memories of ``layer`` in exactly ``scope`` (not its ancestors'), not retracted,
        newest first: an index seek, whatever the ancestors hold."""
        rows = await self._conn.read(Q.SEARCH_SCOPE_LAYER, scope_key=scope.key, layer=layer.value)
        return [props_to_node(r["m"]) for r in rows]

    async def persona_nodes(self, scope: Scope, *, identity: str, prefix: str, limit: int) -> list[MemoryNode]:
        """The semantic memories ``scope`` sees labelled ``identity`` or starting with
        ``prefix`` (the newest ``limit`` of each kind), not retracted: one round trip."""
        rows = await self._conn.read(
            Q.SEARCH_PERSONA, visible=scope.ancestor_keys(), layer=Layer.SEMANTIC.value, identity=identity,
            prefix=prefix, limit=limit,
        )  # fmt: skip
        return [props_to_node(r["m"]) for r in rows]

    async def turn_reads(
        self, scope: Scope, *, working: bool, prospective: bool, persona: bool, identity: str, prefix: str, limit: int
    ) -> TurnRows:
        """An agent turn's small reads in one round trip: what :meth:`own_nodes` reads for
        the working and the prospective layer and what :meth:`persona_nodes` reads, each only
        when asked for (an empty list otherwise)."""
        rows = await self._conn.read(
            Q.SEARCH_TURN_READS, scope_key=scope.key, visible=scope.ancestor_keys(), working=working,
            prospective=prospective, persona=persona, working_layer=Layer.WORKING.value,
            prospective_layer=Layer.PROSPECTIVE.value, semantic_layer=Layer.SEMANTIC.value, identity=identity,
            prefix=prefix, limit=limit,
        )  # fmt: skip
        row = rows[0]
        return TurnRows(
            working=[props_to_node(m) for m in row["working"]] if working else None,
            prospective=[props_to_node(m) for m in row["prospective"]] if prospective else None,
            persona=[props_to_node(m) for m in row["persona"]] if persona else None,
        )

    async def count(self, scope: Scope, layer: Layer, session_id: str | None = None) -> int:
        rows = await self._conn.read_as(
            Q.GET_COUNT, _Count, scope_key=scope.key, layer=layer.value, session_id=session_id
        )
        return rows[0].count

    async def session_tail(self, scope: Scope, layer: Layer, session_id: str) -> MemoryNode | None:
        """The latest memory of ``layer`` in a session of exactly ``scope``."""
        return (await self.session_tails(scope, layer, [session_id])).get(session_id)

    async def session_tails(self, scope: Scope, layer: Layer, session_ids: Sequence[str]) -> dict[str, MemoryNode]:
        """The latest memory of ``layer`` in each of ``session_ids`` of exactly ``scope`` that has
        one, by session, in one round trip."""
        if not session_ids:
            return {}
        rows = await self._conn.read(
            Q.GET_SESSION_TAILS, scope_key=scope.key, layer=layer.value, session_ids=list(session_ids)
        )
        return {str(r["session_id"]): props_to_node(r["m"]) for r in rows}

    async def link_resemblances(
        self, scope: Scope, ids: Sequence[str], *, k: int, min_cosine: float, now: float
    ) -> int:
        """Link each of ``ids`` (memories of exactly ``scope``) to its ``k`` most similar
        memories of that scope said in another session (``RESEMBLES``, weight = cosine)."""
        rows = await self._conn.write_as(
            Q.UPSERT_RESEMBLANCE_LINKS, _Links, ids=list(ids), scope_key=scope.key, k=k, min_cosine=min_cosine, now=now
        )
        return rows[0].links if rows else 0

    async def upsert_keys(self, scope: Scope, *, enricher: str, turns: list[dict[str, Any]], now: float) -> int:
        """Write the keys of memories of exactly ``scope`` (``turns``: ``memory_id`` and its
        ``keys``, each ``id``, ``kind``, ``text``, ``embedding``) in one transaction; each
        memory's earlier keys from ``enricher`` that the new set lacks are deleted."""
        rows = await self._conn.write_as(
            Q.UPSERT_KEYS, _Written, scope_key=scope.key, enricher=enricher, turns=turns, now=now
        )
        return rows[0].written if rows else 0

    async def key_count(self, scope: Scope) -> int:
        """How many keys the memories of exactly ``scope`` have."""
        return (await self._conn.read_as(Q.GET_KEY_COUNT, _N, scope_key=scope.key))[0].n

    async def search_events(self, scope: Scope, **params: Any) -> list[MemoryNode]:
        """Events visible from ``scope`` (``since``, ``until``, ``session_id``, ``limit``, ``offset``)."""
        rows = await self._conn.read(Q.SEARCH_EVENTS, visible=scope.ancestor_keys(), **params)
        return [props_to_node(r["m"]) for r in rows]

    async def delete_working_overflow(self, scope: Scope, keep: int, session_id: str | None = None) -> None:
        """Keep the newest ``keep`` working entries of one session of exactly ``scope``."""
        await self._conn.write(Q.DELETE_WORKING_OVERFLOW, scope_key=scope.key, keep=keep, session_id=session_id)

    async def delete_scope_layer(self, scope: Scope, layer: Layer, session_id: str | None) -> int:
        rows = await self._conn.write_as(
            Q.DELETE_SCOPE_LAYER, _Deleted, scope_key=scope.key, layer=layer.value, session_id=session_id
        )
        return rows[0].deleted if rows else 0

    async def supersede(self, scope: Scope, old_id: str, new_id: str, now: float) -> bool:
        """Mark ``old_id`` superseded by ``new_id``; False when it is not a fact of ``scope``."""
        rows = await self._conn.write(Q.UPDATE_SUPERSESSION, old_id=old_id, new_id=new_id, scope_key=scope.key, now=now)
        return bool(rows)

    async def current_fact(self, scope: Scope, key: str) -> MemoryNode | None:
        rows = await self._conn.read(Q.GET_CURRENT_FACT, scope_key=scope.key, key=key)
        return props_to_node(rows[0]["m"]) if rows else None

    async def owned_ids_by_prefix(self, scope: Scope, prefix: str) -> list[str]:
        """Up to two ids of memories of ``scope`` or below that start with ``prefix``."""
        rows = await self._conn.read(
            Q.GET_OWNED_IDS_BY_PREFIX, prefix=prefix, scope_key=scope.key, subtree_prefix=scope.subtree_prefix
        )
        return [str(r["id"]) for r in rows]

    async def retract(self, scope: Scope, node_id: str, *, now: float, retraction: str) -> bool:
        """Soft-delete a memory of ``scope`` or below; False when there is none."""
        rows = await self._conn.write(
            Q.UPDATE_RETRACTION,
            id=node_id,
            scope_key=scope.key,
            subtree_prefix=scope.subtree_prefix,
            now=now,
            retraction=retraction,
        )
        return bool(rows)

    async def record_audit(self, scope: Scope, **entry: Any) -> AuditEntry:
        """Append to the audit trail (see :func:`hippograph.audit.record_audit`)."""
        return await record_audit(self._conn, scope, **entry)
