"""The audit trail: who decided what, when — skill approvals, rejections and toggles (written by
the procedural layer) and restores of retracted memories (written by consolidation).

An entry is an ``(:AuditEntry {id, scope_key, actor, action, target, at, detail})`` node
hanging off ``-[:IN_SCOPE]->(:Scope)`` (erased with its scope); ``detail`` is a JSON string.
To record an entry in the same transaction as the decision it explains, call
:func:`record_in` with the :class:`~hippograph.store.transaction.WriteTransaction` of your ``write_tx``.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum, auto, nonmember
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from hippograph.errors import InvalidInputError, validation_errors
from hippograph.models import check_id, new_id, now
from hippograph.scope import Scope
from hippograph.store.catalog import CypherQuery
from hippograph.store.connection import Neo4jConnection
from hippograph.store.transaction import Row, WriteTransaction

__all__ = [
    "AuditAction",
    "AuditEntry",
    "AuditQuery",
    "audit_params",
    "build_audit_entry",
    "list_audit",
    "record_audit",
    "record_in",
]

_ACTION = re.compile(r"^[a-z][a-z0-9_.:-]{0,63}$")
MAX_LIST = 1000


class AuditQuery(CypherQuery):
    """Queries of the audit trail (``cypher/audit``)."""

    folder = nonmember("audit")

    UPSERT_AUDIT_ENTRY = auto()
    SEARCH_AUDIT_ENTRIES = auto()


class AuditAction(StrEnum):
    """The actions hippograph itself records; any lower-case identifier is accepted."""

    APPROVE = "approve"
    REJECT = "reject"
    TOGGLE = "toggle"
    RESTORE = "restore"


class AuditEntry(BaseModel):
    """One recorded decision. ``target`` is the id of what it was about (a memory, a skill)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_id)
    scope_key: str
    actor: str = Field(min_length=1, max_length=200)
    action: str
    target: str
    at: float = Field(default_factory=now)
    detail: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("actor")
    @classmethod
    def _actor(cls, v: str) -> str:
        if not v.strip() or any(not c.isprintable() for c in v):
            raise ValueError("must be printable text")
        return v

    @field_validator("action")
    @classmethod
    def _action(cls, v: str) -> str:
        if not _ACTION.match(v):
            raise ValueError(f"must match {_ACTION.pattern}")
        return v

    @field_validator("target")
    @classmethod
    def _target(cls, v: str) -> str:
        return check_id(v, "target")


def audit_params(entry: AuditEntry) -> dict[str, Any]:
    """The flat map :attr:`AuditQuery.UPSERT_AUDIT_ENTRY` takes as ``$entry``."""
    data = entry.model_dump(mode="json")
    data["detail"] = json.dumps(data["detail"], sort_keys=True)
    return data


class _EntryRow(Row):
    """An entry node's properties (``detail`` as stored: a JSON string)."""

    entry: dict[str, Any]

    def to_entry(self) -> AuditEntry:
        data = dict(self.entry)
        if isinstance(data.get("detail"), str):
            data["detail"] = json.loads(data["detail"])
        return AuditEntry.model_validate(data)


async def record_in(tx: WriteTransaction, entry: AuditEntry) -> None:
    """Write ``entry`` inside ``tx``, beside the decision it records (idempotent by its id)."""
    await tx.run(AuditQuery.UPSERT_AUDIT_ENTRY, entry=audit_params(entry))


def build_audit_entry(
    scope: Scope,
    actor: str,
    action: AuditAction | str,
    target: str,
    detail: dict[str, Any] | None = None,
    *,
    at: float | None = None,
) -> AuditEntry:
    """Validate an entry; raise InvalidInputError naming the bad field (nothing is written)."""
    fields: dict[str, Any] = {
        "scope_key": scope.key,
        "actor": actor,
        "action": str(action),
        "target": target,
        "detail": dict(detail or {}),
    }
    if at is not None:
        fields["at"] = at
    with validation_errors(empty="entry", depth=1):
        entry = AuditEntry.model_validate(fields)
    return entry


async def record_audit(
    conn: Neo4jConnection,
    scope: Scope,
    actor: str,
    action: AuditAction | str,
    target: str,
    detail: dict[str, Any] | None = None,
    *,
    at: float | None = None,
) -> AuditEntry:
    """Record that ``actor`` did ``action`` to ``target`` in ``scope``.

    Args:
        conn: The Neo4j connection.
        scope: Where the decision was taken (its subtree's ``list_audit`` shows it).
        actor: Who decided: a user name, an API key's owner, ``"consolidation"``.
        action: An :class:`AuditAction` or any lower-case identifier.
        target: The id of the memory or skill the decision is about.
        detail: JSON-serialisable context (previous state, reason, …).
        at: When, in epoch seconds; now by default.

    Returns:
        The stored entry.

    Raises:
        InvalidInputError: A field is malformed; nothing was written.
    """
    entry = build_audit_entry(scope, actor, action, target, detail, at=at)
    rows = await conn.write_as(AuditQuery.UPSERT_AUDIT_ENTRY, _EntryRow, entry=audit_params(entry))
    return rows[0].to_entry()


async def list_audit(conn: Neo4jConnection, scope: Scope, limit: int = 50, offset: int = 0) -> list[AuditEntry]:
    """Audit entries of ``scope`` and every scope below it, newest first.

    Raises:
        InvalidInputError: ``limit`` is not in 1..1000 or ``offset`` is negative.
    """
    if not 1 <= limit <= MAX_LIST:
        raise InvalidInputError("limit", f"must be between 1 and {MAX_LIST}")
    if offset < 0:
        raise InvalidInputError("offset", "must be ≥ 0")
    rows = await conn.read_as(
        AuditQuery.SEARCH_AUDIT_ENTRIES,
        _EntryRow,
        scope_key=scope.key,
        subtree_prefix=scope.subtree_prefix,
        limit=limit,
        offset=offset,
    )
    return [r.to_entry() for r in rows]
