"""Moving a database to another embedder while recall keeps answering.

:func:`reembed` runs in three phases, each resumable (the phase and the last memory id done are
kept on the schema node, so running it again with the same embedder carries on):

1. **vectors** — the new model's vectors are written beside the old ones (``_embedding_next``),
   in id order, ``batch_size`` memories at a time, then the memories written meanwhile; an index
   of the new size is built over them. Recall reads the old vectors all along.
2. **switch, copy** — in one step the database records the new embedder and recall reads the new
   index with the new model's query vectors (:meth:`RecallEngine.use_vectors`; a recall under way
   finishes on the old pair). The old index is dropped, the new vectors copied into ``embedding``
   and its index built again at the new size.
3. **switch back, cleanup** — recall reads ``embedding`` again (the same model's vectors); the
   side index and the copies are dropped.

A recall is never answered from a mix: its query vector and the vectors it is compared with come
from one model. Processes other than the one running this keep their old embedder: stop them
before the first switch, or start them again with the new embedder after it (the database
refuses the old one from then on).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import ConfigurationError
from hippograph.store.connection import Neo4jConnection
from hippograph.store.queries import SchemaQuery as Q
from hippograph.store.vectors import (
    MAIN,
    NEXT,
    EmbeddingRecord,
    VectorSlot,
    check_vector_options,
    describe,
    embedding_record,
    model_id_of,
    slot_query,
    vector_ddl,
    write_record,
)

__all__ = ["ReembedProgress", "ReembedReport", "prepare_embedder", "reembed"]

ReembedProgress = Callable[[str, int, int], None]
"""``(phase, done, total)`` after each batch; phase is ``vectors``, ``copy`` or ``cleanup``."""
OnSwitch = Callable[[VectorSlot], Awaitable[None] | None]
"""Called at each switch with the slot recall reads from then on (the new model's vectors both
times); awaited when it returns an awaitable, before anything changes the vectors recall read
until then (so it can wait for the recalls still reading them)."""


@dataclass(frozen=True, slots=True)
class ReembedReport:
    """What a re-embedding did."""

    model: str | None
    dimensions: int
    embedded: int
    """Memories given the new model's vector (this run)."""
    seconds: float
    already: bool = False
    """True: the database was on this embedder already; nothing was done."""


async def prepare_embedder(embedder: EmbeddingProvider) -> int:
    """The embedder's dimensions, asking its model once when only an answer tells them."""
    probe = getattr(embedder, "probe", None)
    if probe is not None:
        await probe()
    return embedder.dimensions


def _text(label: str | None, content: str | None) -> str:
    """A memory's own words, as :attr:`MemoryNode.text` makes them for its vector."""
    label, content = label or "", content or ""
    if label and content and not content.startswith(label):
        return f"{label}: {content}"
    return content or label


async def reembed(
    conn: Neo4jConnection,
    embedder: EmbeddingProvider,
    *,
    batch_size: int = 256,
    progress: ReembedProgress | None = None,
    on_switch: OnSwitch | None = None,
    await_seconds: int = 3600,
) -> ReembedReport:
    """Move the database's vectors to ``embedder`` (see the module's phases).

    Raises:
        ConfigurationError: Another re-embedding is under way (finish it with its embedder
            first), or the embedder's size is not one a vector index takes.
    """
    t0 = time.perf_counter()
    if batch_size < 1:
        raise ConfigurationError("batch_size must be positive")
    model, dims = model_id_of(embedder), await prepare_embedder(embedder)
    similarity = "cosine"
    check_vector_options(dims, similarity)
    record = await embedding_record(conn)
    job = _Job(conn, embedder, batch_size, progress, await_seconds)
    if record is None:  # no vectors yet: the new embedder's index straight away
        from hippograph.store.schema import migrate

        await write_record(conn, EmbeddingRecord(model, dims, similarity))
        await migrate(conn, dimensions=dims, similarity=similarity)
        return ReembedReport(model, dims, 0, time.perf_counter() - t0, already=True)
    phase = record.reembed_phase
    if phase is not None and (record.reembed_model, record.reembed_dimensions) != (model, dims):
        raise ConfigurationError(
            f"a re-embedding to {describe(record.reembed_model, record.reembed_dimensions or 0)} is under way: "
            "run `hippograph reembed` with that embedder to finish it first"
        )
    if phase is None:
        if record.model == model and record.dimensions == dims and record.slot == MAIN:
            return ReembedReport(model, dims, 0, time.perf_counter() - t0, already=True)
        phase = "vectors"
        await job.state(model, dims, phase, "")
    cursor = record.reembed_cursor or ""
    caps = conn.capabilities
    if phase == "vectors":
        total = (await conn.read(Q.GET_REEMBED_TOTAL))[0]["n"]
        while rows := await conn.read(Q.GET_REEMBED_BATCH, after=cursor, batch=batch_size):
            await job.embed(rows, Q.UPDATE_NEXT_VECTORS, "vectors", total)
            cursor = rows[-1]["id"]
            await job.state(model, dims, phase, cursor)
        await job.stragglers(Q.UPDATE_NEXT_VECTORS, "vectors", total)
        create = caps.pick(Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN, Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING)
        await conn.run_autocommit(vector_ddl(create, dims, similarity, NEXT))
        await conn.run_autocommit(Q.AWAIT_INDEXES, seconds=await_seconds)
        await job.stragglers(Q.UPDATE_NEXT_VECTORS, "vectors", total)
        # the switch: the database and recall take the new model's vectors in one step
        await write_record(conn, EmbeddingRecord(model, dims, similarity, NEXT.property))
        phase, cursor = "copy", ""
        await job.state(model, dims, phase, cursor)
        await _switched(on_switch, NEXT)
    if phase == "copy":
        drop = caps.pick(Q.DROP_INDEX_MEMORY_EMBEDDING_CHAIN, Q.DROP_INDEX_MEMORY_EMBEDDING)
        await conn.run_autocommit(drop)
        done = 0
        while True:
            (row,) = await conn.write(Q.UPDATE_COPY_NEXT_VECTORS, after=cursor, batch=batch_size)
            if not row["n"]:
                break
            cursor, done = row["last"], done + row["n"]
            await job.state(model, dims, phase, cursor)
            job.tell("copy", done, 0)
        await job.stragglers(Q.UPDATE_REEMBEDDED_VECTORS, "copy", 0)
        create = caps.pick(Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN, Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING)
        await conn.run_autocommit(vector_ddl(create, dims, similarity, MAIN))
        await conn.run_autocommit(Q.AWAIT_INDEXES, seconds=await_seconds)
        await job.stragglers(Q.UPDATE_REEMBEDDED_VECTORS, "copy", 0)
        await write_record(conn, EmbeddingRecord(model, dims, similarity, MAIN.property))
        phase, cursor = "cleanup", ""
        await job.state(model, dims, phase, cursor)
        await _switched(on_switch, MAIN)
    if phase == "cleanup":
        drop = caps.pick(Q.DROP_INDEX_MEMORY_EMBEDDING_CHAIN, Q.DROP_INDEX_MEMORY_EMBEDDING)
        await conn.run_autocommit(slot_query(drop, NEXT))
        done = 0
        while True:
            (row,) = await conn.write(Q.DELETE_NEXT_VECTORS, after=cursor, batch=batch_size)
            if not row["n"]:
                break
            cursor, done = row["last"], done + row["n"]
            await job.state(model, dims, phase, cursor)
            job.tell("cleanup", done, 0)
        await job.state(None, None, None, None)
    return ReembedReport(model, dims, job.embedded, time.perf_counter() - t0)


async def _switched(on_switch: OnSwitch | None, slot: VectorSlot) -> None:
    if on_switch is not None:
        outcome = on_switch(slot)
        if inspect.isawaitable(outcome):
            await outcome


class _Job:
    def __init__(
        self,
        conn: Neo4jConnection,
        embedder: EmbeddingProvider,
        batch_size: int,
        progress: ReembedProgress | None,
        await_seconds: int,
    ) -> None:
        self.conn = conn
        self.embedder = embedder
        self.batch_size = batch_size
        self.progress = progress
        self.await_seconds = await_seconds
        self.embedded = 0

    def tell(self, phase: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(phase, done, total)

    async def state(self, model: str | None, dims: int | None, phase: str | None, cursor: str | None) -> None:
        await self.conn.write(
            Q.UPDATE_REEMBED_STATE,
            model=model,
            dimensions=dims,
            similarity="cosine" if dims is not None else None,
            phase=phase,
            cursor=cursor,
        )

    async def embed(self, rows: list[dict[str, Any]], query: Q, phase: str, total: int) -> None:
        vectors = await self.embedder.embed_batch([_text(r["label"], r["content"]) for r in rows])
        await self.conn.write(query, rows=[{"id": r["id"], "vector": v} for r, v in zip(rows, vectors, strict=True)])
        self.embedded += len(rows)
        self.tell(phase, self.embedded, total)

    async def stragglers(self, query: Q, phase: str, total: int) -> None:
        """The memories with a vector but none of the new model's (written meanwhile)."""
        while rows := await self.conn.read(Q.GET_REEMBED_STRAGGLERS, batch=self.batch_size):
            await self.embed(rows, query, phase, total)
