"""Causal consistency on a cluster: a read that follows a write sees it.

On Aura or a Neo4j cluster (a ``neo4j://`` URI) reads are routed to readers, which apply the
writer's transactions a moment later. Each committed transaction hands back a *bookmark*; a
transaction started with bookmarks waits, on whichever member it lands, until that member has
applied them. The driver's bookmark manager (``AsyncGraphDatabase.bookmark_manager()``) keeps
them: every session a :class:`~hippograph.store.Neo4jConnection` opens is given one, so the
next transaction carries the bookmarks of the ones before it.

Which manager a session gets decides who waits for whom:

* outside any :func:`causal_scope`, the connection's own: everything done through one
  connection is causally chained (``memory.remember(...)`` then ``memory.recall(...)``, an
  agent turn then a recall);
* inside ``with causal_scope():``, one for that scope alone: its reads wait for its own writes
  and not for those of other scopes running at the same time. The API opens one per request,
  so one tenant's reads never wait for another's writes. Tasks started inside a scope inherit
  it, as they inherit every context variable.

On a single server a bookmark is always already applied: nothing waits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from neo4j import AsyncGraphDatabase
from neo4j.api import AsyncBookmarkManager

__all__ = ["bookmark_manager", "causal_scope"]

_managers: ContextVar[dict[object, AsyncBookmarkManager] | None] = ContextVar("hippograph_causal_scope", default=None)
"""The current scope's bookmark managers, one per connection (a bookmark of one server means
nothing to another), made on first use; None outside any scope."""


@contextmanager
def causal_scope() -> Iterator[None]:
    """A scope of causal consistency: inside it, every read sees the writes made earlier in the
    same scope, on whichever cluster member it runs, and does not wait for writes made in other
    scopes. Scopes do not nest: an inner one starts afresh.

    Outside any scope all work through one connection is chained, which is the safe default
    for a library user; a scope is for a server that runs unrelated work side by side (the API
    opens one per HTTP request)::

        with hg.causal_scope():
            await memory.remember(scope, "Bob's city", "Bob lives in Lisbon.")
            result = await memory.recall(scope, "Where does Bob live?")  # sees it
    """
    token = _managers.set({})
    try:
        yield
    finally:
        _managers.reset(token)


def bookmark_manager(owner: object, default: AsyncBookmarkManager) -> AsyncBookmarkManager:
    """The bookmark manager for a session of ``owner`` (a connection): the current scope's,
    else ``default`` (the connection's own)."""
    managers = _managers.get()
    if managers is None:
        return default
    manager = managers.get(owner)
    if manager is None:
        manager = managers[owner] = AsyncGraphDatabase.bookmark_manager()
    return manager
