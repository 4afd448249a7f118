"""The per-scope consolidation lease: ``(:ConsolidationLease {scope_key, holder, expires_at})``.

A lease covers its scope's subtree, so it is refused while another live lease sits on the
scope, an ancestor or a descendant. It expires by itself ``lease_ttl`` seconds after its last
renewal (server clock): a crashed run blocks nobody for long. The lease node also keeps the
bookkeeping of incremental phases (watermarks) between runs.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from hippograph.consolidation import repository as repo
from hippograph.errors import AlreadyRunningError
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection

_LEASE_FIELDS = frozenset({"scope_key", "holder", "acquired_at", "expires_at", "released_at"})


class Lease:
    """A held lease. Get one with :meth:`acquire`; give it back with :meth:`release`."""

    def __init__(self, conn: Neo4jConnection, scope: Scope, holder: str, ttl: float, state: dict[str, Any]) -> None:
        self.conn = conn
        self.scope = scope
        self.holder = holder
        self.ttl = ttl
        self.state = state

    @classmethod
    async def acquire(
        cls,
        conn: Neo4jConnection,
        scope: Scope,
        *,
        holder: str,
        ttl: float,
        wait: bool = False,
        timeout: float = 60.0,
        poll: float = 0.25,
    ) -> Lease:
        """Take the lease of ``scope``; raise AlreadyRunningError when it is held (after
        ``timeout`` seconds of polling when ``wait``)."""
        await repo.ensure_scope_chain(conn, scope)
        params = {
            "scope_key": scope.key,
            "subtree_prefix": scope.subtree_prefix,
            "root_key": scope.ancestor_keys()[0],
            "ancestor_keys": scope.ancestor_keys(),
            "holder": holder,
            "ttl": ttl,
        }
        deadline = time.monotonic() + timeout
        while True:
            row = await repo.acquire_lease(conn, **params)
            if row.acquired:
                lease = dict(row.lease or {})
                state = {k: v for k, v in lease.items() if k not in _LEASE_FIELDS}
                return cls(conn, scope, holder, ttl, state)
            if not wait or time.monotonic() >= deadline:
                raise AlreadyRunningError(
                    f"consolidation of {scope.key} is already running (lease held on {sorted(row.busy or [])})"
                )
            await asyncio.sleep(poll)

    async def renew(self) -> None:
        """Push the expiry ``ttl`` seconds ahead; AlreadyRunningError if the lease was lost."""
        if not await repo.renew_lease(self.conn, scope_key=self.scope.key, holder=self.holder, ttl=self.ttl):
            raise AlreadyRunningError(f"the consolidation lease of {self.scope.key} expired and was taken")

    async def save(self, state: dict[str, Any]) -> None:
        """Store bookkeeping on the lease node now."""
        self.state.update(state)
        await repo.update_lease_state(self.conn, scope_key=self.scope.key, holder=self.holder, state=state)

    async def release(self, state: dict[str, Any] | None = None) -> None:
        await repo.release_lease(self.conn, scope_key=self.scope.key, holder=self.holder, state=state or {})


ensure_scope_chain = repo.ensure_scope_chain
