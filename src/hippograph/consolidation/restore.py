"""Undo of a soft retraction, within the grace period, leaving an audit entry."""

from __future__ import annotations

import json
from typing import Any

from hippograph.audit import AuditAction, AuditEntry, AuditQuery, audit_params, build_audit_entry
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.errors import ConflictError, NotFoundError
from hippograph.models import check_id
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection


async def restore_memory(
    conn: Neo4jConnection, scope: Scope, memory_id: str, actor: str, *, now: float, grace: float
) -> AuditEntry:
    """Un-retract ``memory_id`` (owned by ``scope`` or below) and record who did it, in one
    transaction. See :meth:`SleepConsolidator.restore`."""
    check_id(memory_id, "memory_id")
    entry = build_audit_entry(scope, actor, AuditAction.RESTORE, memory_id, at=now)

    async def work(tx: Any) -> tuple[dict[str, Any] | None, AuditEntry | None]:
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

    row, audited = await conn.write_tx(work)
    if row is None:
        raise NotFoundError(f"memory {memory_id} is not owned by {scope.key} (or was pruned)")
    if audited is None:
        if not row["was_retracted"]:
            raise ConflictError(f"memory {memory_id} is not retracted")
        raise ConflictError(f"memory {memory_id} was retracted more than {grace:.0f} s ago: too late to restore")
    return audited
