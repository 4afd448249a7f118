"""Read-decide-write in one transaction under database locks.

A semantic write reads the current fact of its key and the scope's near-duplicates, then
writes and supersedes. Done in separate transactions, concurrent writers (several API
workers, not one Python process) each see "no current fact" and fork the key's history or
duplicate the fact. :meth:`LockedWrites.run` takes ``(:FactLock {scope_key, key})`` locks
(a uniquely constrained node, MERGEd and written) first, inside the transaction that then
reads and writes through a :class:`LockedTx`: writers of one key, or of one scope's dedup,
queue in the database. The transaction function is retried on transient faults (deadlocks
included), so it only decides from what it reads.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from hippograph.cues import Cue
from hippograph.errors import ConflictError, InvalidInputError, NotFoundError
from hippograph.models import Layer, MemoryNode, now
from hippograph.scope import Scope
from hippograph.store.mapping import has_direction, node_to_props, props_to_node, update_params, upsert_rows
from hippograph.store.queries import MemoryQuery as Q
from hippograph.store.scope_gone import ScopeGoneError, write_into
from hippograph.store.transaction import Row, WriteTransaction

if TYPE_CHECKING:
    from hippograph.store.graph_store import GraphStore

T = TypeVar("T")
DEDUP_LOCK = ""
"""The lock key of a scope's write-time dedup (fact keys are never empty)."""


class _NodeRow(Row):
    """A memory's properties (``m``)."""

    m: dict[str, Any]


class _Hit(Row):
    id: str
    score: float


class _Written(Row):
    ours: bool


class _Id(Row):
    id: str


class LockedTx:
    """The reads and writes a locked semantic write needs, inside its transaction."""

    def __init__(self, tx: WriteTransaction, scope: Scope) -> None:
        self._tx = tx
        self.scope = scope

    async def current_fact(self, key: str) -> MemoryNode | None:
        row = await self._tx.single_as(Q.GET_CURRENT_FACT, _NodeRow, scope_key=self.scope.key, key=key)
        return props_to_node(row.m) if row else None

    async def nearest_own(self, layer: Layer, vector: Sequence[float], k: int) -> dict[str, float]:
        """Cosine of the ``k`` memories of ``layer`` in exactly this scope nearest ``vector``
        (an exact scan: it sees what the writers before this one committed); none for the zero vector."""
        if not has_direction(vector):
            return {}
        rows = await self._tx.rows_as(
            Q.SEARCH_VECTOR_EXACT,
            _Hit,
            visible=[self.scope.key],
            layers=[layer.value],
            k=k,
            vector=[float(x) for x in vector],
        )
        return {r.id: 2 * r.score - 1 for r in rows}  # (1 + cos) / 2 → cosine

    async def get_nodes(self, ids: Sequence[str]) -> list[MemoryNode]:
        rows = await self._tx.rows_as(
            Q.GET_NODES, _NodeRow, ids=list(ids), visible=self.scope.ancestor_keys(), with_embedding=False
        )
        return [props_to_node(r.m) for r in rows]

    async def add_node(self, node: MemoryNode, cues: Sequence[Cue]) -> MemoryNode:
        node = node.model_copy(update={"scope_key": self.scope.key})
        rows, cue_table = upsert_rows(self.scope, [node], {node.id: cues})
        records = await self._tx.rows_as(
            Q.UPSERT_NODES,
            _Written,
            scope_key=self.scope.key,
            rows=rows,
            cues=cue_table,
            now=now(),
            tx_token=uuid.uuid4().hex,
        )
        if not records:  # no Scope node: erased by another process since this one created it
            raise ScopeGoneError(self.scope.key)
        [record] = records
        if not record.ours:
            raise ConflictError(f"id already used in another scope: {node.id}")
        return node

    async def update_node(self, current: MemoryNode, updates: Mapping[str, Any]) -> MemoryNode:
        merged = MemoryNode.model_validate({**current.model_dump(), "updated_at": now(), **updates})
        props = node_to_props(merged, Scope.parse(current.scope_key))
        changed = {k: v for k, v in props.items() if k in updates or k in ("updated_at", "search_text", "scope_tag")}
        for key in updates:  # explicit None clears a property, as GraphStore.update_node does
            changed.setdefault(key, None)
        row = await self._tx.single_as(
            Q.UPDATE_NODE,
            _NodeRow,
            id=current.id,
            **update_params(changed),
            scope_key=self.scope.key,
            subtree_prefix=self.scope.subtree_prefix,
        )
        if row is None:
            raise NotFoundError(f"memory {current.id} is not owned by {self.scope.key}")
        return props_to_node(row.m)

    async def supersede(self, old_id: str, new_id: str, at: float) -> None:
        rows = await self._tx.rows_as(
            Q.UPDATE_SUPERSESSION, _Id, old_id=old_id, new_id=new_id, scope_key=self.scope.key, now=at
        )
        if not rows:
            raise InvalidInputError("supersedes", f"{old_id} is not a fact of {self.scope.key}")


async def run_locked(
    store: GraphStore, scope: Scope, locks: Sequence[str], work: Callable[[LockedTx], Awaitable[T]]
) -> T:
    """Run ``work`` in one write transaction holding the ``locks`` of ``scope`` (sorted, so
    two writers never take them in opposite orders)."""
    stamp = now()

    async def tx_work(tx: WriteTransaction) -> T:
        for key in sorted(set(locks)):
            await tx.run(Q.UPSERT_FACT_LOCK, scope_key=scope.key, key=key, now=stamp)
        return await work(LockedTx(tx, scope))

    result: T = await write_into(store, scope, lambda: store.conn.write_tx(tx_work))
    return result
