"""Vector search that stays correct under a scope filter.

The vector index answers the global top-k; filtering afterwards can starve a small scope. So:
ask the index for ``fetch_k`` (then 8 × ``fetch_k``) and keep its answer only when at least
``k`` visible hits survive the filter — then they are exactly the scope's top-k by the
index's ranking, because anything visible outside the index's answer scores lower. Otherwise
an exact scan over the visible memories answers, which is fast precisely because the scope's
share of the database is small.
"""

from __future__ import annotations

from typing import Any

from hippograph.store.catalog import CypherQuery
from hippograph.store.connection import Neo4jConnection, Record

WIDEN = 8


async def scoped_vector_search(
    conn: Neo4jConnection,
    index_query: CypherQuery,
    exact_query: CypherQuery,
    *,
    k: int,
    fetch_k: int,
    exact_first: bool = False,
    **params: Any,
) -> list[Record]:
    """Rows of ``index_query`` when it yields ``k`` visible hits, else of ``exact_query``.
    ``exact_first`` skips the index when the caller knows the visible set is small."""
    if exact_first:
        return await conn.read(exact_query, k=k, **params)
    for widen in (1, WIDEN):
        rows = await conn.read(index_query, fetch_k=fetch_k * widen, k=k, **params)
        if len(rows) >= k:
            return rows
    return await conn.read(exact_query, k=k, **params)
