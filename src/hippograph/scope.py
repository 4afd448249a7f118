"""Hierarchical scopes: a root-first path of (kind, id) levels, e.g. org → user → conversation.

A query at path P sees a memory at path Q iff Q is P or an ancestor of P. Stores check this by
exact membership of the memory's ``scope_key`` in ``P.ancestor_keys()`` — never a prefix scan.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from hippograph.errors import InvalidScopeError

LEVEL_SEPARATOR = "/"
KIND_SEPARATOR = ":"
MAX_DEPTH = 8
MAX_ID_LENGTH = 128
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_FORBIDDEN_IN_ID = frozenset(LEVEL_SEPARATOR + KIND_SEPARATOR + "`\\")


class ScopeLevel(NamedTuple):
    """One level of a scope path."""

    kind: str
    id: str


def _check_level(kind: Any, ident: Any, position: int) -> ScopeLevel:
    field = f"scope[{position}]"
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise InvalidScopeError(f"{field}.kind", f"must match {_KIND.pattern} (lowercase identifier), got {kind!r}")
    if not isinstance(ident, str) or not ident:
        raise InvalidScopeError(f"{field}.id", "must be a non-empty string")
    if len(ident) > MAX_ID_LENGTH:
        raise InvalidScopeError(f"{field}.id", f"longer than {MAX_ID_LENGTH} characters")
    for ch in ident:
        if ch in _FORBIDDEN_IN_ID or ch.isspace() or unicodedata.category(ch)[0] == "C":
            raise InvalidScopeError(f"{field}.id", f"contains a separator, space or control character: {ch!r}")
    return ScopeLevel(kind, ident)


@dataclass(frozen=True, slots=True)
class Scope:
    """A validated, immutable scope path. Build with :meth:`root`, :meth:`child`,
    :meth:`from_path` or :meth:`parse`."""

    levels: tuple[ScopeLevel, ...]

    def __post_init__(self) -> None:
        if not self.levels:
            raise InvalidScopeError("scope", "needs at least one level")
        if len(self.levels) > MAX_DEPTH:
            raise InvalidScopeError("scope", f"deeper than {MAX_DEPTH} levels")
        checked = tuple(_check_level(k, i, n) for n, (k, i) in enumerate(self.levels))
        kinds = [lvl.kind for lvl in checked]
        if len(set(kinds)) != len(kinds):
            raise InvalidScopeError("scope", f"kinds must be unique along the path: {kinds}")
        object.__setattr__(self, "levels", checked)

    @classmethod
    def root(cls, kind: str, id: str) -> Scope:
        return cls(((kind, id),))  # type: ignore[arg-type]

    @classmethod
    def from_path(cls, path: Iterable[Sequence[str] | dict[str, str]]) -> Scope:
        """From ``[("org", "acme"), ("user", "bob")]`` or ``[{"kind": …, "id": …}, …]``."""
        levels: list[ScopeLevel] = []
        for n, item in enumerate(path):
            if isinstance(item, dict):
                levels.append(ScopeLevel(item.get("kind", ""), item.get("id", "")))
            elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
                levels.append(ScopeLevel(item[0], item[1]))
            else:
                raise InvalidScopeError(f"scope[{n}]", f"expected (kind, id), got {item!r}")
        return cls(tuple(levels))

    @classmethod
    def parse(cls, key: str) -> Scope:
        """Inverse of :attr:`key`: ``"org:acme/user:bob"``."""
        if not isinstance(key, str) or not key:
            raise InvalidScopeError("scope", "key must be a non-empty string")
        levels = []
        for n, part in enumerate(key.split(LEVEL_SEPARATOR)):
            kind, sep, ident = part.partition(KIND_SEPARATOR)
            if not sep:
                raise InvalidScopeError(f"scope[{n}]", f"expected kind:id, got {part!r}")
            levels.append(ScopeLevel(kind, ident))
        return cls(tuple(levels))

    def child(self, kind: str, id: str) -> Scope:
        return Scope((*self.levels, ScopeLevel(kind, id)))

    @property
    def key(self) -> str:
        return LEVEL_SEPARATOR.join(f"{k}{KIND_SEPARATOR}{i}" for k, i in self.levels)

    @property
    def subtree_prefix(self) -> str:
        """Every descendant's key starts with this (ids cannot contain the separator)."""
        return self.key + LEVEL_SEPARATOR

    @property
    def depth(self) -> int:
        return len(self.levels)

    @property
    def kind(self) -> str:
        return self.levels[-1].kind

    @property
    def id(self) -> str:
        return self.levels[-1].id

    @property
    def parent(self) -> Scope | None:
        return Scope(self.levels[:-1]) if len(self.levels) > 1 else None

    def ancestors(self) -> list[Scope]:
        """Root-first, self included."""
        return [Scope(self.levels[:n]) for n in range(1, len(self.levels) + 1)]

    def ancestor_keys(self) -> list[str]:
        """The keys a query here may see: root-first, self included."""
        return [s.key for s in self.ancestors()]

    def is_ancestor_of(self, other: Scope) -> bool:
        """True when self is other or above it."""
        return other.levels[: len(self.levels)] == self.levels

    def distance_to(self, memory_scope_key: str) -> int | None:
        """Levels between this scope and a visible memory's scope; None when not visible."""
        keys = self.ancestor_keys()
        if memory_scope_key not in keys:
            return None
        return len(keys) - 1 - keys.index(memory_scope_key)

    def to_path(self) -> list[dict[str, str]]:
        return [{"kind": k, "id": i} for k, i in self.levels]

    def __str__(self) -> str:
        return self.key


def scope_weight(distance: int, *, floor: float = 0.0, half_life: float = 1.0) -> float:
    """Scope-distance weighting: own level 1.0, parent 0.5, grandparent 0.25 (half_life 1)."""
    return float(floor + (1.0 - floor) * 2.0 ** (-distance / half_life))
