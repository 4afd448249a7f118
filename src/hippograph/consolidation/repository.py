"""Consolidation's storage boundary: the only consolidation module that talks to the connection.

Phases run their catalogued job through :func:`batch`, :func:`read` and :func:`write`; the
lease, the run history and the undo of a retraction have their own functions here.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import JsonValue

from hippograph.audit import AuditEntry, record_in
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.scope import Scope
from hippograph.store.catalog import CypherQuery
from hippograph.store.connection import Neo4jConnection
from hippograph.store.mapping import scope_rows
from hippograph.store.queries import MemoryQuery
from hippograph.store.transaction import Row, WriteTransaction

R = TypeVar("R", bound=Row)


class LeaseRow(Row):
    """What ``acquire_lease`` answers: taken or not, the lease node's properties, who is busy."""

    acquired: bool
    lease: dict[str, Any] | None = None
    busy: list[str] | None = None


class _Renewed(Row):
    renewed: bool


class _RunRow(Row):
    run: dict[str, Any]


class RestoreRow(Row):
    """What ``restore_memory`` answers for a memory owned there: what it was, and whether it is
    restored now."""

    scope_key: str
    was_retracted: bool
    retracted_at: float | None = None
    retraction: JsonValue = None
    """The retraction's reasons as stored (a JSON string)."""
    restored: bool


# -- phases ------------------------------------------------------------------------------------
async def batch(conn: Neo4jConnection, query: CypherQuery, row: type[R], params: dict[str, Any]) -> R:
    """Run a ``CALL {…} IN TRANSACTIONS`` job; return its single summary row as ``row`` (built
    from no columns when the job answers none)."""
    rows = await conn.run_autocommit(query, **params)
    return row.model_validate(rows[0] if rows else {})


async def read(conn: Neo4jConnection, query: CypherQuery, row: type[R], params: dict[str, Any]) -> list[R]:
    return await conn.read_as(query, row, **params)


async def write(conn: Neo4jConnection, query: CypherQuery, row: type[R], params: dict[str, Any]) -> list[R]:
    return await conn.write_as(query, row, **params)


async def terminate_run(conn: Neo4jConnection, run_id: str) -> None:
    """Stop the statements a cancelled run left on the server."""
    await conn.run_autocommit(Q.TERMINATE_RUN_TRANSACTIONS, cancelled_run=run_id)


# -- scopes and the lease ---------------------------------------------------------------------
async def ensure_scope_chain(conn: Neo4jConnection, scope: Scope) -> None:
    """Create the Scope nodes of ``scope`` and its ancestors (the store's own query)."""
    await conn.write(MemoryQuery.UPSERT_SCOPES, scopes=scope_rows(scope))


async def acquire_lease(conn: Neo4jConnection, **params: Any) -> LeaseRow:
    return (await conn.write_as(Q.ACQUIRE_LEASE, LeaseRow, **params))[0]


async def renew_lease(conn: Neo4jConnection, *, scope_key: str, holder: str, ttl: float) -> bool:
    rows = await conn.write_as(Q.RENEW_LEASE, _Renewed, scope_key=scope_key, holder=holder, ttl=ttl)
    return bool(rows and rows[0].renewed)


async def update_lease_state(conn: Neo4jConnection, *, scope_key: str, holder: str, state: dict[str, Any]) -> None:
    await conn.write(Q.UPDATE_LEASE_STATE, scope_key=scope_key, holder=holder, state=state)


async def release_lease(conn: Neo4jConnection, *, scope_key: str, holder: str, state: dict[str, Any]) -> None:
    await conn.write(Q.RELEASE_LEASE, scope_key=scope_key, holder=holder, state=state)


# -- history and undo -------------------------------------------------------------------------
async def save_run(conn: Neo4jConnection, run: dict[str, Any]) -> None:
    await conn.write(Q.UPSERT_CONSOLIDATION_RUN, run=run)


async def search_runs(conn: Neo4jConnection, *, scope_key: str, limit: int, offset: int) -> list[dict[str, Any]]:
    rows = await conn.read_as(Q.SEARCH_CONSOLIDATION_RUNS, _RunRow, scope_key=scope_key, limit=limit, offset=offset)
    return [r.run for r in rows]


async def restore_with_audit(
    conn: Neo4jConnection, scope: Scope, memory_id: str, entry: AuditEntry, *, now: float, grace: float
) -> tuple[RestoreRow | None, AuditEntry | None]:
    """Un-retract and record ``entry`` (with the old retraction as detail) in one transaction.
    Returns (the restore row or None when nothing matched, the entry when it was restored)."""

    async def work(tx: WriteTransaction) -> tuple[RestoreRow | None, AuditEntry | None]:
        row = await tx.single_as(
            Q.RESTORE_MEMORY,
            RestoreRow,
            id=memory_id,
            scope_key=scope.key,
            subtree_prefix=scope.subtree_prefix,
            now=now,
            grace=grace,
        )
        if row is None or not row.restored:
            return row, None
        detail = {
            "memory_scope": row.scope_key,
            "retracted_at": row.retracted_at,
            "retraction": json.loads(row.retraction) if isinstance(row.retraction, str) else None,
        }
        done = entry.model_copy(update={"detail": detail})
        await record_in(tx, done)
        return row, done

    return await conn.write_tx(work)
