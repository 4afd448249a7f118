"""Getting a memory ready so its first recall and first agent turn cost what the hundredth does.

Cold, the first recall pays for three things the later ones do not: loading the embedding
model (and its first, slower run), the server planning and compiling the recall statement
(seconds after a Neo4j start, once per mix of parameter types and sizes), and the server's
just-in-time compiler meeting that code for the first time. :meth:`Memory.warm` pays for them
ahead: it loads the embedder and embeds a sentence while the server plans the recall
statement, then reads what an agent turn reads before its model (recall, the working memory,
the pending triggers and the persona, in :meth:`Memory.context`) a few times over a scope that
holds nothing, and recalls as often in the scope of the memory updated last: a statement that
reads rows runs (and so has the server compile) code an empty one never reaches, and reads
pages into the server's page cache. The plans it leaves in the server's cache serve every
scope: recall sends every parameter with one type and size bucket whatever its value
(:func:`~hippograph.retrieval.repository.recall_statement_params`).

It writes nothing: the warm-up scope is never created, a recall that finds nothing leaves no
bookkeeping behind, and the recalls in a real scope count no access (``track_access`` off).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.layers.turn_reads import TurnReads
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.types import RecallResult
from hippograph.scope import Scope

__all__ = ["WARM_QUERIES", "WARM_ROUNDS", "WARM_SCOPE", "WarmUp", "warm_up"]

log = logging.getLogger(__name__)

WARM_SCOPE = Scope.root("org", "hippograph-warm-up").child("user", "warm-up")
"""The scope the warm-up reads: two levels, as a user's scope under an organisation usually is
(the visible-keys list then falls in the same size bucket), and never written."""

WARM_QUERIES = (
    "What did Ada tell me about the trip to Lisbon last May?",
    "Remind me what we planned for the garden this weekend.",
    "Who recommended the book about sailing, and when?",
)
"""Questions shaped like a user's (a name, a place, a time): each warm-up round asks the next."""
WARM_ROUNDS = 3
"""Rounds of a turn's reads (and a recall in the scope written last) after the plans."""


@dataclass(frozen=True)
class WarmUp:
    """What :meth:`Memory.warm <hippograph.memory.Memory.warm>` took, in milliseconds."""

    embedder_ms: float
    """Loading the embedding model and embedding the first sentences."""
    plans_ms: float
    """The server planning and compiling the recall statement (beside the embedder)."""
    reads_ms: float
    """The turn's reads, ``rounds`` times, after both."""
    total_ms: float


class Warmable(Protocol):
    """What :func:`warm_up` reads through (:class:`~hippograph.memory.Memory` is one)."""

    @property
    def recall_config(self) -> RecallConfig: ...

    def turn_reads(self, scope: Scope, *, working: bool, prospective: bool, persona: bool) -> TurnReads: ...

    async def context(
        self, scope: Scope, query: str, *, session_id: str | None = None, turn_reads: TurnReads | None = None
    ) -> Any: ...

    async def recall(self, scope: Scope, query: str, *, config: RecallConfig | None = None) -> RecallResult: ...


async def warm_up(memory: Warmable, engine: RecallEngine, embedder: EmbeddingProvider) -> WarmUp:
    """:meth:`Memory.warm <hippograph.memory.Memory.warm>` of ``memory``, whose recall engine
    and embedder these are."""
    t0 = time.perf_counter()

    async def load_embedder() -> float:
        await embedder.embed(WARM_QUERIES[0])
        await embedder.embed_batch(list(WARM_QUERIES[1:]))
        return (time.perf_counter() - t0) * 1000

    async def plans() -> float:
        engine.warm_plans()
        await engine.warmed()
        return (time.perf_counter() - t0) * 1000

    embedder_ms, plans_ms = await asyncio.gather(load_embedder(), plans())
    t_reads = time.perf_counter()
    recent = await engine.repo.recent_scope()
    quiet = memory.recall_config.model_copy(update={"track_access": False})
    for i in range(WARM_ROUNDS):
        query = WARM_QUERIES[i % len(WARM_QUERIES)]
        reads = memory.turn_reads(WARM_SCOPE, working=True, prospective=True, persona=True)
        try:
            await memory.context(WARM_SCOPE, query, session_id="warm-up", turn_reads=reads)
        finally:
            reads.close()
        if recent is not None:
            await memory.recall(Scope.parse(recent), query, config=quiet)
    await engine.drain()
    done = time.perf_counter()
    warmed = WarmUp(
        embedder_ms=embedder_ms, plans_ms=plans_ms, reads_ms=(done - t_reads) * 1000, total_ms=(done - t0) * 1000
    )
    log.info(
        "warmed up in %.0f ms (embedder %.0f, plans %.0f, reads %.0f)",
        warmed.total_ms, warmed.embedder_ms, warmed.plans_ms, warmed.reads_ms,
    )  # fmt: skip
    return warmed
