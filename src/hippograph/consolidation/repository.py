"""Consolidation's storage boundary: the only consolidation module that talks to the connection.

Phases run their catalogued job through :func:`batch`, :func:`read` and :func:`write`; the
lease, the run history and the undo of a retraction have their own functions here.
"""

from __future__ import annotations

import json
from typing import Any

from hippograph.audit import AuditEntry, AuditQuery, audit_params
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.scope import Scope
from hippograph.store.catalog import CypherQuery
from hippograph.store.connection import Neo4jConnection, Row
from hippograph.store.mapping import scope_rows
from hippograph.store.queries import MemoryQuery

Record = dict[str, Any]


class LeaseRow(Row):
    """What ``acquire_lease`` answers: taken or not, the lease node's properties, who is busy."""

    acquired: bool
    lease: dict[str, Any] | None = None
    busy: list[str] | None = None


# -- phases ------------------------------------------------------------------------------------
async def batch(conn: Neo4jConnection, query: CypherQuery, params: dict[str, Any]) -> Record:
    """Run a ``CALL {…} IN TRANSACTIONS`` job; return its single summary row."""
    rows = await conn.run_autocommit(query, **params)
    return rows[0] if rows else {}


async def read(conn: Neo4jConnection, query: CypherQuery, params: dict[str, Any]) -> list[Record]:
    return await conn.read(query, **params)


async def write(conn: Neo4jConnection, query: CypherQuery, params: dict[str, Any]) -> list[Record]:
    return await conn.write(query, **params)


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
    rows = await conn.write(Q.RENEW_LEASE, scope_key=scope_key, holder=holder, ttl=ttl)
    return bool(rows and rows[0]["renewed"])


async def update_lease_state(conn: Neo4jConnection, *, scope_key: str, holder: str, state: dict[str, Any]) -> None:
    await conn.write(Q.UPDATE_LEASE_STATE, scope_key=scope_key, holder=holder, state=state)


async def release_lease(conn: Neo4jConnection, *, scope_key: str, holder: str, state: dict[str, Any]) -> None:
    await conn.write(Q.RELEASE_LEASE, scope_key=scope_key, holder=holder, state=state)


# -- history and undo -------------------------------------------------------------------------
async def save_run(conn: Neo4jConnection, run: dict[str, Any]) -> None:
    await conn.write(Q.UPSERT_CONSOLIDATION_RUN, run=run)


async def search_runs(conn: Neo4jConnection, *, scope_key: str, limit: int, offset: int) -> list[dict[str, Any]]:
    rows = await conn.read(Q.SEARCH_CONSOLIDATION_RUNS, scope_key=scope_key, limit=limit, offset=offset)
    return [r["run"] for r in rows]


async def restore_with_audit(
    conn: Neo4jConnection, scope: Scope, memory_id: str, entry: AuditEntry, *, now: float, grace: float
) -> tuple[Record | None, AuditEntry | None]:
    """Un-retract and record ``entry`` (with the old retraction as detail) in one transaction.
    Returns (the restore row or None when nothing matched, the entry when it was restored)."""

    async def work(tx: Any) -> tuple[Record | None, AuditEntry | None]:
        result = await tx.run(
            Q.RESTORE_MEMORY.text,
            id=memory_id,
            scope_key=scope.key,
            subtree_prefix=scope.subtree_prefix,
            now=now,
            grace=grace,
        )
        rows = [r.data() async for r in result]
        if not rows or not rows[0]["restored"]:
            return (rows[0] if rows else None), None
        row = rows[0]
        retraction = json.loads(row["retraction"]) if isinstance(row["retraction"], str) else None
        detail = {
            "memory_scope": row["scope_key"],
            "retracted_at": row["retracted_at"],
            "retraction": retraction,
        }
        done = entry.model_copy(update={"detail": detail})
        await tx.run(AuditQuery.UPSERT_AUDIT_ENTRY.text, entry=audit_params(done))
        return row, done

    return await conn.write_tx(work)
