"""Undo of a soft retraction, within the grace period, leaving an audit entry."""

from __future__ import annotations

from hippograph.audit import AuditAction, AuditEntry, build_audit_entry
from hippograph.consolidation import repository as repo
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

    row, audited = await repo.restore_with_audit(conn, scope, memory_id, entry, now=now, grace=grace)
    if row is None:
        raise NotFoundError(f"memory {memory_id} is not owned by {scope.key} (or was pruned)")
    if audited is None:
        if not row.was_retracted:
            raise ConflictError(f"memory {memory_id} is not retracted")
        raise ConflictError(f"memory {memory_id} was retracted more than {grace:.0f} s ago: too late to restore")
    return audited
