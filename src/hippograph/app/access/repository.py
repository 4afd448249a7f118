"""The key store's persistence: API keys, the per-key request ledger and the per-scope daily
token ledger, each method one Cypher call whose rows are read as typed, frozen models."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from hippograph.app.access.queries import SCHEMA_QUERIES, AccessQuery
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection, Row


class KeyRecord(Row):
    """An API key as stored, never its hash."""

    id: str
    name: str = ""
    scope_key: str
    role: str
    rate_limit: int | None = None
    created_at: float
    revoked_at: float | None = None
    last_used_at: float | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _unnamed(cls, value: Any) -> Any:
        return value or ""


class _KeyRow(Row):
    key: KeyRecord


class _KeyUseRow(Row):
    key: KeyRecord
    used: int


class _DeletedRow(Row):
    deleted: int


class _UsedRow(Row):
    used: int


class KeyRepository:
    """API keys and the ledgers that every API worker and MCP server share."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    async def apply_schema(self) -> None:
        for query in SCHEMA_QUERIES:
            await self.conn.run_autocommit(query)

    async def insert_key(self, key: dict[str, Any]) -> KeyRecord:
        rows = await self.conn.write_as(AccessQuery.UPSERT_API_KEY, _KeyRow, key=key)
        return rows[0].key

    async def list_keys(self, scope_key: str | None, prefix: str | None, include_revoked: bool) -> list[KeyRecord]:
        rows = await self.conn.read_as(
            AccessQuery.SEARCH_API_KEYS, _KeyRow, scope_key=scope_key, prefix=prefix, include_revoked=include_revoked
        )
        return [r.key for r in rows]

    async def revoke_key(self, key_id: str, now: float) -> KeyRecord | None:
        rows = await self.conn.write_as(AccessQuery.UPDATE_API_KEY_REVOKED, _KeyRow, id=key_id, now=now)
        return rows[0].key if rows else None

    async def delete_keys(self, scope: Scope) -> int:
        """Delete the keys bound to ``scope`` or below it (part of erasing the scope)."""
        rows = await self.conn.write_as(
            AccessQuery.DELETE_SCOPE_API_KEYS, _DeletedRow, scope_key=scope.key, subtree_prefix=scope.subtree_prefix
        )
        return rows[0].deleted if rows else 0

    async def use_key(self, token_hash: str, window: float, now: float) -> tuple[KeyRecord, int] | None:
        rows = await self.conn.write_as(
            AccessQuery.UPDATE_API_KEY_USAGE, _KeyUseRow, hash=token_hash, window=window, now=now
        )
        return (rows[0].key, rows[0].used) if rows else None

    async def tokens_used(self, ledger_id: str) -> int:
        rows = await self.conn.read_as(AccessQuery.GET_TOKEN_BUDGET, _UsedRow, id=ledger_id)
        return rows[0].used if rows else 0

    async def spend_tokens(self, ledger_id: str, scope_key: str, day: str, tokens: int, now: float) -> int:
        rows = await self.conn.write_as(
            AccessQuery.UPDATE_TOKEN_BUDGET,
            _UsedRow,
            id=ledger_id,
            scope_key=scope_key,
            day=day,
            tokens=tokens,
            now=now,
        )
        return rows[0].used
