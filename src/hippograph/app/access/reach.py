"""What a request may see, as Cypher parameters: scope keys listed exactly plus, optionally,
every key under a prefix. Built from scopes only (never from user text)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hippograph.scope import Scope


class Listing(StrEnum):
    """Which memories a listing at scope T shows."""

    VISIBLE = "visible"
    """What a recall at T sees: T's own memories and its ancestors' (the library's rule)."""
    OWN = "own"
    """T's own memories only."""
    SUBTREE = "subtree"
    """T's memories and every scope's below it."""


@dataclass(frozen=True, slots=True)
class Reach:
    """``keys`` exactly, plus every scope key starting with ``prefix`` (None: no prefix)."""

    keys: tuple[str, ...]
    prefix: str | None

    @classmethod
    def everything(cls) -> Reach:
        return cls((), "")

    @classmethod
    def of_key_at(cls, scope: Scope) -> Reach:
        """A key bound to ``scope``: its ancestors' memories (as the scope sees them) and its
        whole subtree — never a sibling's."""
        return cls(tuple(scope.ancestor_keys()), scope.subtree_prefix)

    @classmethod
    def listing(cls, scope: Scope, listing: Listing) -> Reach:
        if listing is Listing.VISIBLE:
            return cls(tuple(scope.ancestor_keys()), None)
        if listing is Listing.OWN:
            return cls((scope.key,), None)
        return cls((scope.key,), scope.subtree_prefix)

    def contains(self, scope_key: str) -> bool:
        return scope_key in self.keys or (self.prefix is not None and scope_key.startswith(self.prefix))

    def params(self) -> dict[str, Any]:
        return {"keys": list(self.keys), "prefix": self.prefix}
