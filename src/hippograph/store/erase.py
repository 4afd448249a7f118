"""Erasing a scope and everything below it (GDPR erase), at any size and completely.

1. **Tombstone** (one small transaction): an ``(:Erasure {key})`` marker records the erase
   (and every Scope node of the subtree is marked ``erasing``). Every read — recall, the
   store's, the API's, export, the MCP tools, the saved Browser queries — leaves out the scopes
   at or below a marker, in the same statement that reads, so the erase is all-or-nothing in
   effect from this commit on, while the deletes run and after a crash.
2. **References from outside the subtree**: relationships written on the erased scope's
   behalf between its ancestors' memories (stamped with its key), provenance lists naming its
   episodes, and the ancestors' bookkeeping naming it (audit entries, pending links, a merge
   watermark). Batched (``CALL {…} IN TRANSACTIONS``).
3. **The subtree itself** in batches of ``batch`` nodes, one transaction each, so no
   transaction outgrows the memory pool (one statement over 10,000 memories overflowed the
   default 512 MiB pool); progress is reported after every batch.
4. The Scope nodes and the marker.

Every step is idempotent: an erase that crashed is finished by erasing again.
"""

from __future__ import annotations

from collections.abc import Callable

from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection
from hippograph.store.queries import MemoryQuery as Q

ERASE_BATCH = 1000
EraseProgress = Callable[[int, int], object]
"""``progress(memories_deleted, memories_total)``, called after every batch."""


async def erase_subtree(
    conn: Neo4jConnection,
    scope: Scope,
    *,
    now: float,
    batch: int = ERASE_BATCH,
    progress: EraseProgress | None = None,
) -> int:
    """Erase ``scope`` and every scope below it; return how many memories this call deleted."""
    marked = await conn.write(Q.UPSERT_ERASURE, scope_key=scope.key, now=now)
    total = int(marked[0]["memories"] or 0) if marked else 0
    ancestors = scope.ancestor_keys()[:-1]
    owned = {"scope_key": scope.key, "subtree_prefix": scope.subtree_prefix}
    if ancestors:
        params = {**owned, "ancestor_keys": ancestors, "batch": batch}
        await conn.run_autocommit(Q.DELETE_ERASED_STAMPS, **params)
        await conn.run_autocommit(Q.UPDATE_ERASED_PROVENANCE, **params)
        await conn.write(Q.DELETE_ERASED_BOOKKEEPING, **owned, ancestor_keys=ancestors)
    deleted = 0
    while True:
        rows = await conn.write(Q.DELETE_SUBTREE_BATCH, scope_key=scope.key, batch=batch)
        if not rows or not rows[0]["deleted"]:
            break
        deleted += int(rows[0]["memories"])
        if progress is not None:
            progress(deleted, max(total, deleted))
    await conn.write(Q.DELETE_ERASED_SCOPES, scope_key=scope.key)
    return deleted
