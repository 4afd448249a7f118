"""Vector search that stays correct under a scope filter.

A global top-k filtered afterwards starves a small scope. The vector index carries each
memory's scope chain interval as filter properties (``memory_embedding_chain``, see
:attr:`hippograph.scope.Scope.chain_lo`), so the whole visible chain is searched inside the
index at once (Cypher 25 ``SEARCH … WHERE m.scope_lo <= $at AND m.scope_hi > $at``, two such
searches in a namespace): ``fetch_k`` hits per search, then the visible keys (an erase's
tombstone), layer and retraction filters, then the best ``k``. For a scope small enough, Lucene
answers such a filtered search exactly (it scores every matching vector); for a larger one it
is the index's approximation — oversampled by ``fetch_k`` over ``k``. When fewer than ``k``
survive (a scope with fewer memories, most of them retracted or of other layers) an exact
scan over the visible memories answers. ``exact_first`` skips the index when the caller knows
the visible set is small enough that the exact scan is both exact and faster (False: the index
first, whatever the size; None, the default: decided here, see below).

The index can also fail inside the server: Neo4j 2026.08 raises an internal error
(``Neo.DatabaseError.Statement.ExecutionFailed``, Lucene reading past a small segment's live-docs
bitset) for filtered searches once a small segment of the index has deletions. The exact scan
then answers (correct, slower) and a warning names the error; :func:`index_failed` tells that
failure apart for the one-statement recall, which does the same.

Neo4j 5.26 LTS has no ``SEARCH`` and no filter properties (:mod:`hippograph.store.server_capabilities`).
There, unless the caller decided, a visible set of at most :data:`LTS_EXACT_UP_TO` memories (a
bounded count tells) is scanned exactly — as Lucene's filtered search is exact for a small
filter on 2026.x. A larger one goes through ``lts_query``: the index's global top-``fetch_k``,
then the scope filter. When fewer than ``k`` survive, the search is widened (``fetch_k`` ×
:data:`WIDEN`, up to :data:`MAX_INDEX_FETCH`) before the exact scan answers — a scope among
larger ones never gets fewer than ``k`` hits because the others crowded the global top-k.
"""

from __future__ import annotations

import logging
from typing import Any

from hippograph.errors import StoreFailedError
from hippograph.store.catalog import Statement
from hippograph.store.connection import Neo4jConnection, Record
from hippograph.store.queries import MemoryQuery

log = logging.getLogger(__name__)

LTS_EXACT_UP_TO = 5000
"""On 5.26, visible sets this small are scanned exactly (recall's exact-scan bound too)."""
WIDEN = 8
"""How much more the 5.26 path asks of the index each time too few hits survived the filter."""
MAX_INDEX_FETCH = 10_000
"""The widest global top-k the 5.26 path asks for before the exact scan answers."""
INDEX_SEARCH_FAILED = "Neo.DatabaseError.Statement.ExecutionFailed"
"""The code of the server's internal failure inside a filtered vector search."""


def index_failed(exc: StoreFailedError) -> bool:
    """True when ``exc`` is the server failing inside a statement (the vector index's error)."""
    return exc.code == INDEX_SEARCH_FAILED


def index_fetches(fetch_k: int) -> list[int]:
    """The global top-k sizes the 5.26 path asks the index for, in turn: ``fetch_k``, then
    × :data:`WIDEN` up to :data:`MAX_INDEX_FETCH`."""
    fetches = [max(1, fetch_k)]
    while fetches[-1] < MAX_INDEX_FETCH:
        fetches.append(min(MAX_INDEX_FETCH, fetches[-1] * WIDEN))
    return fetches


async def scoped_vector_search(
    conn: Neo4jConnection,
    search_query: Statement,
    exact_query: Statement,
    *,
    lts_query: Statement,
    k: int,
    fetch_k: int,
    exact_first: bool | None = None,
    **params: Any,
) -> list[Record]:
    """Rows of ``search_query`` (``lts_query``, widened, on Neo4j 5.26) when it yields ``k``
    visible hits, else of ``exact_query``."""
    searched = conn.capabilities.supports_search_clause
    if exact_first is None and not searched:
        counted = await conn.read(
            MemoryQuery.GET_VISIBLE_COUNT_CAPPED,
            visible=params["visible"],
            layers=params.get("layers"),
            cap=LTS_EXACT_UP_TO + 1,
        )
        exact_first = counted[0]["n"] <= LTS_EXACT_UP_TO
    if not exact_first:
        fetches = [fetch_k] if searched else index_fetches(fetch_k)
        query = search_query if searched else lts_query
        try:
            for fetch in fetches:
                rows = await conn.read(query, fetch_k=fetch, k=k, **params)
                if len(rows) >= k:
                    return rows
        except StoreFailedError as exc:
            if not index_failed(exc):
                raise
            log.warning("vector index search failed inside Neo4j (%s); the exact scan answers", exc.code)
    return await conn.read(exact_query, k=k, **params)
