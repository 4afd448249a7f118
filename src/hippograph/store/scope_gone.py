"""A write that finds its scope's node gone: another process erased the scope after this one
created it and cached it as existing. The write is then new data for a new scope of the same
key (as after an erase in this process): the scope is created again and the write retried once,
never dropped without a word."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from hippograph.errors import ConflictError
from hippograph.scope import Scope

T = TypeVar("T")


class ScopeKeeper(Protocol):
    """What :func:`write_into` needs of the store: its cache of scopes known to exist."""

    async def ensure_scope(self, scope: Scope) -> None: ...

    def forget_known(self, scope: Scope) -> None: ...


class ScopeGoneError(Exception):
    """Raised inside a write transaction that found no Scope node for its scope."""


async def write_into(store: ScopeKeeper, scope: Scope, write: Callable[[], Awaitable[T]]) -> T:
    """Ensure ``scope`` exists, run ``write``; if the scope turned out erased, create it again
    and run ``write`` once more."""
    await store.ensure_scope(scope)
    try:
        return await write()
    except ScopeGoneError:
        store.forget_known(scope)
        await store.ensure_scope(scope)
        try:
            return await write()
        except ScopeGoneError:
            raise ConflictError(f"scope {scope.key} was erased while this write ran; nothing was written") from None
