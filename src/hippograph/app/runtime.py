"""Opening hippograph at the application edge (CLI, demo, API): settings → a Neo4j (the one
``HIPPOGRAPH_NEO4J_URI`` names, or the local embedded one, started when needed) → a
:class:`Memory` with the schema applied."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from hippograph.app.settings import Settings
from hippograph.dbms.local_server import LocalNeo4j
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.memory import Memory

if TYPE_CHECKING:
    from hippograph.consolidation.model_hooks import ModelConsolidation


def freeze_startup_objects() -> None:
    """Keep what start-up built (modules, models, the driver: ≈ 67,000 objects in a served
    agent) out of Python's full collections, which otherwise walk all of it — 40–150 ms each, one
    in every 15–30 turns, inside the turn. Garbage is collected
    first so that nothing unreachable is kept for good; objects made afterwards are collected as
    usual. For a long-running process that owns its interpreter (the API and MCP servers), once,
    when start-up is done."""
    gc.collect()
    gc.freeze()


def local_server(settings: Settings) -> LocalNeo4j:
    return LocalNeo4j(
        settings.local_data_dir,
        port=settings.neo4j_port,
        heap=settings.neo4j_heap,
        pagecache_mb=settings.neo4j_pagecache_mb,
        neo4j_version=settings.neo4j_version,
    )


def neo4j_target(settings: Settings, *, start_local: bool = True) -> tuple[str, str | None]:
    """(uri, password): the configured server, else the local one (started if asked)."""
    if settings.neo4j_uri:
        pw = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
        return settings.neo4j_uri, pw
    server = local_server(settings)
    status = server.start() if start_local else server.status()
    return status.uri or server.uri(), server.password()


def consolidation_model(settings: Settings) -> ModelConsolidation | None:
    """Claude as consolidation's summariser and merge judge when an Anthropic key is set (and
    ``consolidation_model`` is on); None keeps the extractive, cosine-only default."""
    if settings.anthropic_api_key is None or not settings.consolidation_model:
        return None
    from hippograph.consolidation.model_hooks import claude_consolidation  # only with a key: a recall needs none

    return claude_consolidation(
        api_key=settings.anthropic_api_key.get_secret_value(),
        model=settings.anthropic_model,
        base_url=settings.anthropic_base_url,
    )


@asynccontextmanager
async def open_memory(
    settings: Settings | None = None, *, embedder: EmbeddingProvider | None = None
) -> AsyncIterator[Memory]:
    """``async with open_memory() as memory:`` — connected, schema applied, closed on exit.
    The embedding model loads (on the embedder's worker thread) while the driver connects and
    the server plans recall: a one-shot command pays for the longer of the two, not both."""
    settings = settings or Settings()
    if embedder is None:
        embedder = settings.make_embedder()
    loading = asyncio.ensure_future(embedder.embed("hippograph"))
    try:
        uri, password = neo4j_target(settings)
        memory = await Memory.connect(
            uri, user=settings.neo4j_user, password=password, database=settings.neo4j_database, embedder=embedder
        )
    except BaseException:
        loading.cancel()
        await asyncio.gather(loading, return_exceptions=True)
        raise
    try:
        await loading  # a model that cannot load fails here, as the first recall would
        yield memory
    finally:
        await memory.close()
