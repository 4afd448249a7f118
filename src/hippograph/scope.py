"""Hierarchical scopes: a root-first path of (kind, id) levels, e.g. org → user → conversation.

A query at path P sees a memory at path Q iff Q is P or an ancestor of P. Stores check this by
exact membership of the memory's ``scope_key`` in ``P.ancestor_keys()`` — never a prefix scan.

A scope may also name a *namespace*, a partition orthogonal to the path (one user's "support"
and "sales" memories). It is part of the key, as a last pseudo-level ``/@<namespace>``
(``org:acme/user:bob/@support``), so a memory's namespace travels with its ``scope_key`` and
the same exact-membership check isolates namespaces: a query at (P, ns) sees P's and its
ancestors' memories of namespace ns and of no namespace (the shared ones), never another
namespace's. Without a namespace a scope behaves, and keys, exactly as before. In the key
tree a namespaced scope sits below its path, so whatever covers a path's subtree (erase,
consolidation, an API key bound to it) covers the namespaces at and below it too.

For a filtered vector index, whose filter takes only equality and ranges joined by AND, the
same visibility is also written as an interval (:attr:`Scope.chain_lo`, :attr:`Scope.chain_hi`)
around a point (:meth:`Scope.chain_points`): one range search covers a whole ancestor chain.
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
NAMESPACE_MARKER = "@"
MAX_NAMESPACE_LENGTH = 64
_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # MAX_NAMESPACE_LENGTH in all
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_FORBIDDEN_IN_ID = frozenset(LEVEL_SEPARATOR + KIND_SEPARATOR + "`\\")
CHAIN_SEPARATOR = "\u0001"
"""Between a chain interval's levels: below every character a scope's kind, id or namespace
may hold (those exclude control characters)."""
CHAIN_END = "\u0002"
"""Closes a chain interval: the next character after :data:`CHAIN_SEPARATOR`."""


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


def _check_namespace(namespace: Any) -> str | None:
    if namespace is None or namespace == "":
        return None
    if not isinstance(namespace, str) or not _NAMESPACE.match(namespace):
        raise InvalidScopeError(
            "namespace",
            f"must be 1–{MAX_NAMESPACE_LENGTH} letters, digits, '_', '.' or '-' (starting with a letter "
            f"or digit), got {namespace!r}",
        )
    return namespace


@dataclass(frozen=True, slots=True)
class Scope:
    """A validated, immutable scope path with an optional namespace. Build with :meth:`root`,
    :meth:`child`, :meth:`from_path` or :meth:`parse`; :meth:`in_namespace` switches the
    namespace (``""`` or None: the default, no namespace)."""

    levels: tuple[ScopeLevel, ...]
    namespace: str | None = None

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
        object.__setattr__(self, "namespace", _check_namespace(self.namespace))

    @classmethod
    def root(cls, kind: str, id: str, *, namespace: str | None = None) -> Scope:
        return cls(((kind, id),), namespace)  # type: ignore[arg-type]

    @classmethod
    def from_path(cls, path: Iterable[Sequence[str] | dict[str, str]], *, namespace: str | None = None) -> Scope:
        """From ``[("org", "acme"), ("user", "bob")]`` or ``[{"kind": …, "id": …}, …]``."""
        levels: list[ScopeLevel] = []
        for n, item in enumerate(path):
            if isinstance(item, dict):
                levels.append(ScopeLevel(item.get("kind", ""), item.get("id", "")))
            elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
                levels.append(ScopeLevel(item[0], item[1]))
            else:
                raise InvalidScopeError(f"scope[{n}]", f"expected (kind, id), got {item!r}")
        return cls(tuple(levels), namespace)

    @classmethod
    def parse(cls, key: str, *, namespace: str | None = None) -> Scope:
        """Inverse of :attr:`key`: ``"org:acme/user:bob"``, ``"org:acme/user:bob/@support"``.
        ``namespace``, when given, must agree with one the key names; a key without one takes it."""
        if not isinstance(key, str) or not key:
            raise InvalidScopeError("scope", "key must be a non-empty string")
        parts = key.split(LEVEL_SEPARATOR)
        named = None
        if len(parts) > 1 and parts[-1].startswith(NAMESPACE_MARKER):
            raw = parts.pop()[len(NAMESPACE_MARKER) :]
            if not raw:
                raise InvalidScopeError("namespace", "the key's namespace is empty")
            named = _check_namespace(raw)
        wanted = _check_namespace(namespace)
        if named and wanted and named != wanted:
            raise InvalidScopeError("namespace", f"the key names {named!r}, the namespace given is {wanted!r}")
        levels = []
        for n, part in enumerate(parts):
            kind, sep, ident = part.partition(KIND_SEPARATOR)
            if not sep:
                raise InvalidScopeError(f"scope[{n}]", f"expected kind:id, got {part!r}")
            levels.append(ScopeLevel(kind, ident))
        return cls(tuple(levels), named or wanted)

    def child(self, kind: str, id: str) -> Scope:
        """One level down, in the same namespace."""
        return Scope((*self.levels, ScopeLevel(kind, id)), self.namespace)

    def in_namespace(self, namespace: str | None) -> Scope:
        """This path in ``namespace`` (None or ``""``: the default, no namespace)."""
        return Scope(self.levels, namespace)

    @property
    def path(self) -> Scope:
        """This path without a namespace: the partition every namespace of it shares."""
        return Scope(self.levels) if self.namespace else self

    @property
    def path_key(self) -> str:
        """The key of the path alone, without the namespace."""
        return LEVEL_SEPARATOR.join(f"{k}{KIND_SEPARATOR}{i}" for k, i in self.levels)

    @property
    def key(self) -> str:
        """``org:acme/user:bob``; with a namespace ``org:acme/user:bob/@support``."""
        if self.namespace:
            return f"{self.path_key}{LEVEL_SEPARATOR}{NAMESPACE_MARKER}{self.namespace}"
        return self.path_key

    @property
    def subtree_prefix(self) -> str:
        """Every descendant's key starts with this (ids cannot contain the separator). A path's
        descendants include its namespaces and theirs; a namespaced scope has none of its own."""
        return self.key + LEVEL_SEPARATOR

    @property
    def tenant_id(self) -> str:
        """The root level's id: the tenant."""
        return self.levels[0].id

    @property
    def sub_tenant_id(self) -> str | None:
        """The second level's id, None for a root scope."""
        return self.levels[1].id if len(self.levels) > 1 else None

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
        """The scope one step up the key tree: a namespaced scope's parent is its path."""
        if self.namespace:
            return Scope(self.levels)
        return Scope(self.levels[:-1]) if len(self.levels) > 1 else None

    def ancestors(self) -> list[Scope]:
        """The scopes a query here sees, root-first, self included: each path level, and in a
        namespace each level's namespaced scope right after it."""
        found = []
        for n in range(1, len(self.levels) + 1):
            found.append(Scope(self.levels[:n]))
            if self.namespace:
                found.append(Scope(self.levels[:n], self.namespace))
        return found

    def ancestor_keys(self) -> list[str]:
        """The keys a query here may see: root-first, self included."""
        return [s.key for s in self.ancestors()]

    @property
    def chain_lo(self) -> str:
        """The low end of this scope's chain interval ``[chain_lo, chain_hi)``: the levels joined
        by :data:`CHAIN_SEPARATOR`, led by ``@<namespace>`` and the separator when namespaced.
        A memory stores it (``scope_lo``) beside its ``scope_key``.

        Claim: a query at P sees a memory at S (``S.key in P.ancestor_keys()``) iff some point
        x of ``P.chain_points()`` has ``S.chain_lo <= x < S.chain_hi``.

        Proof. Write s = S.chain_lo; S.chain_hi = s + END. In any lexicographic order where SEP <
        END are the two least characters (code points, UTF-16 units and UTF-8 bytes all order
        them so) a string x has s <= x < s + END iff x = s or x starts with s + SEP: a longer x
        that starts with s is below s + END exactly when its next character is below END, a proper
        prefix of s is below s, and an x that leaves s at some position i lies on the same side
        of s and s + END, as both compare x[i] with s[i]. Kinds, ids and namespaces hold no control character, so SEP in
        an encoding only ever separates parts, and "x = s or x starts with s + SEP" means: x's
        parts begin with all of s's parts. A point is one of P.path.chain_lo (the parts: P's
        levels) or, in a namespace, P.chain_lo (the parts: ``@ns`` then P's levels). A path
        level starts with a kind (a lowercase letter), a namespace part with ``@``, so a
        namespaced s can prefix only the namespaced point, and a plain s only the plain one.
        Hence s contains a point iff S's levels are a prefix of P's levels and S's namespace is
        none or P's — exactly the scopes in ``P.ancestors()``. ∎
        """
        path = CHAIN_SEPARATOR.join(f"{k}{KIND_SEPARATOR}{i}" for k, i in self.levels)
        if self.namespace:
            return f"{NAMESPACE_MARKER}{self.namespace}{CHAIN_SEPARATOR}{path}"
        return path

    @property
    def chain_hi(self) -> str:
        """The high end (excluded) of this scope's chain interval, see :attr:`chain_lo`."""
        return self.chain_lo + CHAIN_END

    def chain_points(self) -> list[str]:
        """The points a query here searches (``scope_lo <= x AND scope_hi > x``) to see exactly
        :meth:`ancestor_keys`' memories: one, and a second in a namespace (the namespace's
        chain beside the path's). See :attr:`chain_lo`."""
        points = [self.path.chain_lo]
        if self.namespace:
            points.append(self.chain_lo)
        return points

    def ancestor_distances(self) -> dict[str, int]:
        """Each visible key with its distance in levels (0 for this path's own keys)."""
        return {s.key: self.depth - s.depth for s in self.ancestors()}

    def is_ancestor_of(self, other: Scope) -> bool:
        """True when self is other or above it in the key tree (so a path is above its
        namespaces, and a namespaced scope above nothing but itself)."""
        return other.key == self.key or other.key.startswith(self.subtree_prefix)

    def sees(self, other: Scope) -> bool:
        """True when a query here sees the memories written at ``other``: other's path is this
        path or above it, and other is in this namespace or in none."""
        return other.levels == self.levels[: len(other.levels)] and other.namespace in (None, self.namespace)

    def distance_to(self, memory_scope_key: str) -> int | None:
        """Levels between this scope and a visible memory's scope; None when not visible."""
        return self.ancestor_distances().get(memory_scope_key)

    def to_path(self) -> list[dict[str, str]]:
        return [{"kind": k, "id": i} for k, i in self.levels]

    def __str__(self) -> str:
        return self.key


def scope_weight(distance: int, *, floor: float = 0.0, half_life: float = 1.0) -> float:
    """Scope-distance weighting: own level 1.0, parent 0.5, grandparent 0.25 (half_life 1)."""
    return float(floor + (1.0 - floor) * 2.0 ** (-distance / half_life))
