"""Erasing a scope at the application edge (the CLI's ``forget``, the API's ``forget``): the
API keys bound to it or below it, then its memories. The library's ``Memory.forget`` knows no
API keys; every edge that erases goes through :func:`erase_scope`, so a key never outlives its
scope (a scope re-created under the same key would open to it)."""

from __future__ import annotations

from hippograph.app.access.repository import KeyRepository
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store.erase import EraseProgress


async def erase_scope(
    memory: Memory, keys: KeyRepository, scope: Scope, *, progress: EraseProgress | None = None
) -> int:
    """Delete the keys of ``scope``'s subtree first (a half-finished erase is then closed to them),
    then erase its memories; the number of memories deleted. Running it again finishes an
    interrupted erase."""
    await keys.delete_keys(scope)
    return await memory.forget(scope, progress=progress)
