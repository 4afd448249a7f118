"""Versioned, idempotent schema migrations.

Each step is a list of DDL queries (all ``IF NOT EXISTS`` / ``IF EXISTS``; a step that drops
an index is paired with removing its creation from the earlier step, so a fresh database never
builds it) and, where a constraint needs its data repaired first, a batched data query before
it that is idempotent and runs only while that constraint is missing. :func:`migrate` runs every step,
waits for the indexes to come online and records the version on a ``HippographSchema`` node.
Running it twice changes nothing the second time.

On Neo4j 5.26 LTS the vector index is built without filter properties (``memory_embedding``,
see :mod:`hippograph.store.server_capabilities`) and nothing is dropped; on 2026.x step 4 drops that
index, if there, and step 8 gives every memory and key its scope chain interval and builds
``memory_embedding_chain`` and ``key_embedding_chain`` over it — so a database moved from 5.26 to
2026.x gets the filtered indexes the next time hippograph connects.
"""

from __future__ import annotations

import re
import time
from typing import Any

from hippograph.scope import CHAIN_END, CHAIN_SEPARATOR
from hippograph.store.connection import Neo4jConnection
from hippograph.store.queries import SchemaQuery as Q
from hippograph.store.server_capabilities import ServerCapabilities
from hippograph.store.vectors import DEFAULT_DIMENSIONS, embedding_record, vector_ddl

SCHEMA_STEPS: tuple[tuple[int, tuple[Q, ...]], ...] = (
    (
        1,
        (
            Q.CREATE_CONSTRAINT_MEMORY_ID,
            Q.CREATE_CONSTRAINT_SCOPE_KEY,
            Q.CREATE_CONSTRAINT_SCHEMA_ID,
            Q.CREATE_INDEX_MEMORY_SCOPE_KEY,
            Q.CREATE_INDEX_MEMORY_SCOPE_LAYER,
            Q.CREATE_INDEX_MEMORY_UPDATED_AT,
            Q.CREATE_INDEX_MEMORY_LABEL,
            Q.CREATE_INDEX_MEMORY_SESSION_ID,
            Q.CREATE_INDEX_PENDING_LINK_SCOPE,
            Q.CREATE_INDEX_CONSOLIDATION_LEASE_SCOPE,
            Q.CREATE_INDEX_AUDIT_ENTRY_SCOPE,
            Q.CREATE_FULLTEXT_INDEX_MEMORY_TEXT,
        ),
    ),
    (
        2,  # fact-key write locks (one history per key under concurrency), erase markers
        (
            Q.CREATE_CONSTRAINT_FACT_LOCK_KEY,
            Q.CREATE_CONSTRAINT_ERASURE_KEY,
        ),
    ),
    (
        3,  # range indexes no query plan uses cost every write; older databases drop them
        (
            Q.DROP_INDEX_MEMORY_CREATED_AT,
            Q.DROP_INDEX_MEMORY_OCCURRED_AT,
            Q.DROP_INDEX_MEMORY_LAYER,
        ),
    ),
    (
        4,  # the unfiltered vector index gives way to a filtered one (step 8; Neo4j 2026.x);
        # on 5.26 it stays (LTS_STEPS)
        (Q.DROP_INDEX_MEMORY_EMBEDDING,),
    ),
    (
        5,  # one Cue per (scope, kind, key) under concurrency: an older database's duplicate cues
        # are folded into one first (their constraint could not be built over them), then the
        # lookup index gives way to a uniqueness constraint over the same properties
        (
            Q.MERGE_DUPLICATE_CUES,
            Q.DROP_INDEX_CUE_SCOPE_KIND_KEY,
            Q.CREATE_CONSTRAINT_CUE_KEY,
        ),
    ),
    (
        6,  # keys of memories (enrichment): one node per id, by scope, their text and vectors
        (
            Q.CREATE_CONSTRAINT_KEY_ID,
            Q.CREATE_INDEX_KEY_SCOPE_KEY,
            Q.CREATE_FULLTEXT_INDEX_KEY_TEXT,
        ),
    ),
    (
        7,  # the persona's nodes by (scope, label): a turn's persona read seeks its few nodes
        # instead of reading the label of every fact the scope sees (12,000 db hits a turn at 10k)
        (Q.CREATE_INDEX_MEMORY_SCOPE_LABEL,),
    ),
    (
        8,  # one vector search per scope chain instead of one per visible scope key: memories and
        # keys carry their scope's chain interval (hippograph.scope.Scope.chain_lo), backfilled
        # before the indexes filtered by it are built over them (on 5.26: memory_embedding)
        (
            Q.UPDATE_MEMORY_SCOPE_BOUNDS,
            Q.DROP_INDEX_MEMORY_EMBEDDING_SCOPED,
            Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN,
            Q.UPDATE_KEY_SCOPE_BOUNDS,
            Q.DROP_INDEX_KEY_EMBEDDING_SCOPED,
            Q.CREATE_VECTOR_INDEX_KEY_EMBEDDING_CHAIN,
        ),
    ),
)
UNTIL_PRESENT: dict[Q, str] = {
    Q.MERGE_DUPLICATE_CUES: "cue_key",
    Q.UPDATE_MEMORY_SCOPE_BOUNDS: "memory_embedding_chain",
    Q.UPDATE_KEY_SCOPE_BOUNDS: "key_embedding_chain",
}
"""Data steps that run only while the named constraint or index is missing: once it exists, what
the step repairs can no longer occur (every write path keeps it so), and a large store skips the
scan on every later start."""
STEP_PARAMETERS: dict[Q, dict[str, Any]] = {
    Q.UPDATE_MEMORY_SCOPE_BOUNDS: {"separator": CHAIN_SEPARATOR, "end": CHAIN_END},
}
"""The parameters of the data steps that take any."""
LTS_STEPS: dict[Q, tuple[Q, ...]] = {
    Q.DROP_INDEX_MEMORY_EMBEDDING: (),
    Q.UPDATE_MEMORY_SCOPE_BOUNDS: (),  # no index filters by it there; a move to 2026.x backfills
    Q.DROP_INDEX_MEMORY_EMBEDDING_SCOPED: (),
    Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN: (Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING,),
    Q.UPDATE_KEY_SCOPE_BOUNDS: (),
    Q.DROP_INDEX_KEY_EMBEDDING_SCOPED: (),
    Q.CREATE_VECTOR_INDEX_KEY_EMBEDDING_CHAIN: (),  # recall scans the visible keys exactly there
}
"""What takes a schema query's place on Neo4j 5.26 (no filtered vector index there)."""
SCHEMA_VERSION = SCHEMA_STEPS[-1][0]
VECTOR_DDL = frozenset(
    {
        Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN,
        Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING,
        Q.CREATE_VECTOR_INDEX_KEY_EMBEDDING_CHAIN,
    }
)
"""The vector indexes' DDL: their size and similarity are the embedder's (written into the text)."""
_DROP_NAME = re.compile(r"DROP\s+(?:INDEX|CONSTRAINT)\s+(\w+)", re.IGNORECASE)
_DDL_NAME = re.compile(r"CREATE\s+(?:VECTOR\s+|FULLTEXT\s+)?(?:INDEX|CONSTRAINT)\s+(\w+)", re.IGNORECASE)


async def schema_version(conn: Neo4jConnection) -> int | None:
    rows = await conn.read(Q.GET_SCHEMA_VERSION)
    value = rows[0]["version"] if rows else None
    return int(value) if value is not None else None


def schema_steps(capabilities: ServerCapabilities) -> tuple[tuple[int, tuple[Q, ...]], ...]:
    """:data:`SCHEMA_STEPS` as this server runs them (:data:`LTS_STEPS` swapped in on 5.26)."""
    if capabilities.supports_search_clause:
        return SCHEMA_STEPS
    return tuple(
        (version, tuple(lts for q in queries for lts in LTS_STEPS.get(q, (q,)))) for version, queries in SCHEMA_STEPS
    )


async def migrate(
    conn: Neo4jConnection,
    *,
    await_seconds: int = 300,
    dimensions: int | None = None,
    similarity: str | None = None,
) -> int:
    """Apply every schema step (idempotent), wait for indexes, record the version. A database
    at this version, with every index and constraint there and none that a step drops, is left
    as it is after three reads (not one statement per step: a short-lived process, such as a
    CLI recall, connects often).

    The vector index is built at ``dimensions`` and ``similarity`` (the embedder's); None: the
    database's recorded embedder's (:mod:`hippograph.store.vectors`), else 384 and cosine. An
    index that exists keeps its size: changing it is a re-embedding."""
    if await _settled(conn):
        return SCHEMA_VERSION
    if dimensions is None or similarity is None:
        found = await embedding_record(conn)
        dimensions = dimensions or (found.dimensions if found else DEFAULT_DIMENSIONS)
        similarity = similarity or (found.similarity if found else "cosine")
    steps = 0
    present = {r["name"] for r in await conn.read(Q.GET_CONSTRAINTS)}
    present |= {r["name"] for r in await conn.read(Q.GET_INDEXES)}
    for _version, queries in schema_steps(conn.capabilities):
        for query in queries:
            if UNTIL_PRESENT.get(query) not in present:
                statement = vector_ddl(query, dimensions, similarity) if query in VECTOR_DDL else query
                await conn.run_autocommit(statement, **STEP_PARAMETERS.get(query, {}))
            steps += 1
    await conn.run_autocommit(Q.AWAIT_INDEXES, seconds=await_seconds)
    current = await schema_version(conn)
    if current != SCHEMA_VERSION:
        await conn.write(Q.UPSERT_SCHEMA_VERSION, version=SCHEMA_VERSION, now=time.time(), steps=steps)
    return SCHEMA_VERSION


async def _settled(conn: Neo4jConnection) -> bool:
    """True when :func:`migrate` has nothing to do: the version is current, every index and
    constraint of the schema is there (indexes online) and none that a step drops is left."""
    if await schema_version(conn) != SCHEMA_VERSION:
        return False
    indexes = await conn.read(Q.GET_INDEXES)
    constraints = {r["name"] for r in await conn.read(Q.GET_CONSTRAINTS)}
    online = {r["name"] for r in indexes if r["state"] == "ONLINE"} | constraints
    present = {r["name"] for r in indexes} | constraints
    steps = schema_steps(conn.capabilities)
    dropped = {m.group(1) for _, queries in steps for q in queries if (m := _DROP_NAME.search(q.text))}
    return set(expected_schema_names(conn.capabilities)) <= online and not dropped & present


def expected_schema_names(capabilities: ServerCapabilities | None = None) -> list[str]:
    """Every index and constraint the schema steps create on such a server (default: a current
    one), by name."""
    steps = schema_steps(capabilities or ServerCapabilities())
    return [m.group(1) for _, queries in steps for q in queries if (m := _DDL_NAME.search(q.text))]


async def missing_schema(conn: Neo4jConnection) -> list[str]:
    """The schema's indexes and constraints that are absent or not ONLINE (``[]``: all there)."""
    online = {r["name"] for r in await conn.read(Q.GET_INDEXES) if r["state"] == "ONLINE"}
    online |= {r["name"] for r in await conn.read(Q.GET_CONSTRAINTS)}
    return [name for name in expected_schema_names(conn.capabilities) if name not in online]
