"""API keys and who may do what.

A key is a random token shown once; Neo4j keeps only its sha256 in an ``(:ApiKey)`` node with
the scope the key is bound to and a role. A key bound to scope S acts on S and every scope
below it, and sees what those scopes see (S's ancestors' memories, by the library's scope
rules) — never a sibling's. Whatever lies outside is *not found*, never *forbidden*: the
answer for another tenant's scope or memory is the same whether it exists or not, and
counts never include it. Roles: ``reader`` reads (recall, context, export), ``writer`` also
writes (turns, remember, retract, procedures, triggers, consolidation), ``admin`` also
erases and imports.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from enum import StrEnum

from hippograph.app.access.reach import Reach
from hippograph.app.access.repository import KeyRecord, KeyRepository
from hippograph.errors import HippographError, InvalidInputError, NotFoundError
from hippograph.models import new_id, now
from hippograph.scope import Scope

TOKEN_PREFIX = "hg_"


class Role(StrEnum):
    READER = "reader"
    WRITER = "writer"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return (Role.READER, Role.WRITER, Role.ADMIN).index(self)


class ApiAuthError(HippographError):
    """A request without a valid key (HTTP 401)."""


class PermissionDeniedError(HippographError):
    """The key's role does not allow the operation on a scope it can see."""


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a key bound to a scope with a role, or the development principal."""

    key: KeyRecord | None
    scope: Scope | None
    role: Role

    @classmethod
    def development(cls) -> Principal:
        return cls(key=None, scope=None, role=Role.ADMIN)

    @classmethod
    def of(cls, record: KeyRecord) -> Principal:
        return cls(key=record, scope=Scope.parse(record.scope_key), role=Role(record.role))

    @property
    def reach(self) -> Reach:
        return Reach.everything() if self.scope is None else Reach.of_key_at(self.scope)

    @property
    def label(self) -> str:
        return "dev" if self.key is None else f"key:{self.key.id}"

    def acts_on(self, scope: Scope) -> bool:
        return self.scope is None or self.scope.is_ancestor_of(scope)

    def target(self, key: str, role: Role = Role.READER, *, namespace: str | None = None) -> Scope:
        """The scope named by ``key`` (in ``namespace`` when given) if this principal acts on it
        with ``role``.

        Raises:
            InvalidScopeError: A malformed key.
            NotFoundError: Outside the key's subtree (the same answer whether it exists or not).
            PermissionDeniedError: Inside, but the role is too low.
        """
        scope = Scope.parse(key, namespace=namespace)
        if not self.acts_on(scope):
            raise NotFoundError(f"scope {key} not found")
        if self.role.rank < role.rank:
            raise PermissionDeniedError(f"a {self.role.value} key cannot do this (needs {role.value})")
        return scope


async def create_key(
    repo: KeyRepository, scope: Scope, role: Role | str, *, name: str = "", rate_limit: int | None = None
) -> tuple[KeyRecord, str]:
    """Store a new key; return its record and the token (shown once, never stored)."""
    try:
        role = Role(role)
    except ValueError:
        raise InvalidInputError("role", f"must be one of {[r.value for r in Role]}") from None
    if rate_limit is not None and rate_limit < 1:
        raise InvalidInputError("rate_limit", "must be ≥ 1 request per minute")
    if len(name) > 200:
        raise InvalidInputError("name", "longer than 200 characters")
    token = new_token()
    record = await repo.insert_key(
        {
            "id": new_id()[:16],
            "name": name,
            "hash": hash_token(token),
            "scope_key": scope.key,
            "role": role.value,
            "rate_limit": rate_limit,
            "created_at": now(),
        }
    )
    return record, token


async def list_keys(
    repo: KeyRepository, scope: Scope | None = None, *, include_revoked: bool = False
) -> list[KeyRecord]:
    """Keys bound to ``scope`` or below (all keys when None), never their hashes."""
    if scope is None:
        return await repo.list_keys(None, None, include_revoked)
    return await repo.list_keys(scope.key, scope.subtree_prefix, include_revoked)


async def revoke_key(repo: KeyRepository, key_id: str) -> KeyRecord:
    record = await repo.revoke_key(key_id, now())
    if record is None:
        raise NotFoundError(f"no API key {key_id}")
    return record


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer …`` header (None when absent or malformed)."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
