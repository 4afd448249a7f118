"""The memories' vectors and the embedder that made them.

The database records its embedder on the schema's singleton node (``HippographSchema``): the
model id, the vectors' dimensions and similarity, and the property recall reads. The vector
index is built at those dimensions (:func:`vector_ddl`: Cypher takes no parameter inside a
DDL statement's options on every supported server, so the number is written into the text from
a checked int). :func:`check_embedder` refuses an embedder that does not match the record, with
both named and the command that migrates (``hippograph reembed``).

A re-embedding (:mod:`hippograph.memory.reembed`) writes the new model's vectors beside the old
ones (``_embedding_next``) under an index of their own; recall reads them through a
:class:`VectorSlot` — the catalogued statements with the property and index names swapped
(:func:`slot_query`) — from the moment it switches until the copy back into ``embedding`` is
indexed.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from hippograph.errors import ConfigurationError
from hippograph.store.catalog import CypherQuery, RenderedQuery, Statement
from hippograph.store.connection import Neo4jConnection
from hippograph.store.queries import SchemaQuery as Q

__all__ = [
    "DEFAULT_MODEL_ID",
    "MAIN",
    "NEXT",
    "READING_SLOT",
    "EmbedderMismatchError",
    "EmbeddingRecord",
    "VectorSlot",
    "check_embedder",
    "embedding_record",
    "model_id_of",
    "slot_query",
    "vector_ddl",
]

DEFAULT_MODEL_ID = "all-MiniLM-L6-v2"
"""The default embedder's model id; a database made before embedders were recorded is taken
to hold its vectors."""
DEFAULT_DIMENSIONS = 384
SIMILARITIES = ("cosine", "euclidean")
MAX_DIMENSIONS = 4096
"""The largest vector a Neo4j vector index takes."""

_DIMENSIONS = re.compile(r"(`vector\.dimensions`:\s*)\d+")
_SIMILARITY = re.compile(r"(`vector\.similarity_function`:\s*)'\w+'")


def check_vector_options(dimensions: int, similarity: str) -> tuple[int, str]:
    """``dimensions`` and ``similarity`` as a vector index takes them.

    Raises:
        ConfigurationError: Not an int in 1–4096, or not a similarity Neo4j knows.
    """
    if isinstance(dimensions, bool) or not isinstance(dimensions, int) or not 1 <= dimensions <= MAX_DIMENSIONS:
        raise ConfigurationError(f"vector dimensions must be an int from 1 to {MAX_DIMENSIONS}, not {dimensions!r}")
    if similarity not in SIMILARITIES:
        raise ConfigurationError(f"vector similarity must be one of {', '.join(SIMILARITIES)}, not {similarity!r}")
    return dimensions, similarity


@dataclass(frozen=True, slots=True)
class VectorSlot:
    """Where recall finds the vectors: the node property and the vector index over it (the
    index filtered by scope chain on Neo4j 2026.x, the unfiltered one on 5.26)."""

    property: str
    index: str
    index_lts: str


MAIN = VectorSlot("embedding", "memory_embedding_chain", "memory_embedding")
"""The memories' own vectors: what every write path sets."""
NEXT = VectorSlot("_embedding_next", "memory_embedding_next_chain", "memory_embedding_next")
"""A re-embedding's new vectors, beside the old ones (the leading underscore keeps them out of
the memories' fields)."""
SLOTS = {MAIN.property: MAIN, NEXT.property: NEXT}
FORMER_INDEXES = ("memory_embedding_scoped",)
"""Names the memories' vector index had in older schemas (filtered by scope key alone, before
schema step 8): a database from then still tells its vectors' size by it."""
READING_SLOT: ContextVar[VectorSlot | None] = ContextVar("hippograph_reading_slot", default=None)
"""The slot the recall under way reads (set for the whole recall when it starts, so that a
switch in the middle cannot pair one model's query vector with the other's stored ones)."""


def slot_query(query: Statement, slot: VectorSlot) -> Statement:
    """``query`` reading (or indexing) ``slot``'s vectors instead of the memories' own: its
    vector property, its index names and, in map projections that leave the vector out, its
    property too. The catalogued query itself for :data:`MAIN`."""
    if slot == MAIN:
        return query
    text = re.sub(r"\bmemory_embedding_chain\b", slot.index, query.text)
    text = re.sub(r"\bmemory_embedding\b", slot.index_lts, text)
    text = re.sub(r"\b(\w+)\.embedding\b", rf"\1.{slot.property}", text)
    text = re.sub(r"\bembedding: null\b", rf"embedding: null, {slot.property}: null", text)
    # only names from this module's closed set of slots are put into the catalogued text
    return RenderedQuery(f"{query.path}@{slot.property}", text, query.kind)


def vector_ddl(query: CypherQuery, dimensions: int, similarity: str = "cosine", slot: VectorSlot = MAIN) -> Statement:
    """A vector index's DDL (a catalogued ``CREATE VECTOR INDEX``) at ``dimensions`` and
    ``similarity``, over ``slot``'s property.

    Raises:
        ConfigurationError: Bad dimensions or similarity.
    """
    dimensions, similarity = check_vector_options(dimensions, similarity)
    base = slot_query(query, slot)
    text, n_dims = _DIMENSIONS.subn(rf"\g<1>{dimensions:d}", base.text)
    text, n_sim = _SIMILARITY.subn(rf"\g<1>'{similarity}'", text)
    if n_dims != 1 or n_sim != 1:
        raise AssertionError(f"{query.path} is not a vector index's DDL")
    return RenderedQuery(f"{base.path}#{dimensions}", text, base.kind)


@dataclass(frozen=True, slots=True)
class EmbeddingRecord:
    """What the database says of its vectors."""

    model: str | None
    dimensions: int
    similarity: str = "cosine"
    vector_property: str = MAIN.property
    reembed_model: str | None = None
    reembed_dimensions: int | None = None
    reembed_similarity: str | None = None
    reembed_phase: str | None = None
    reembed_cursor: str | None = None

    @property
    def slot(self) -> VectorSlot:
        """Where recall reads the vectors."""
        return SLOTS.get(self.vector_property, MAIN)


class EmbedderMismatchError(ConfigurationError):
    """The embedder given is not the one the database's vectors were made with."""

    def __init__(self, record: EmbeddingRecord, model: str | None, dimensions: int) -> None:
        self.record = record
        self.model = model
        self.dimensions = dimensions
        super().__init__(
            f"the database's vectors come from {describe(record.model, record.dimensions)}, "
            f"but the embedder given is {describe(model, dimensions)}: connect with the database's "
            f"embedder, or move the database to the new one with `hippograph reembed --embedder SPEC`"
        )


def describe(model: str | None, dimensions: int) -> str:
    """``all-MiniLM-L6-v2 (384 dimensions)``."""
    return f"{model or 'an unnamed model'} ({dimensions} dimensions)"


def model_id_of(embedder: object) -> str | None:
    """The embedder's ``model_id`` (None: it names none, as test stand-ins; such an embedder is
    checked by its dimensions only)."""
    value = getattr(embedder, "model_id", None)
    return value if isinstance(value, str) and value else None


async def stored_record(conn: Neo4jConnection) -> EmbeddingRecord | None:
    """The embedder recorded on the schema node; None when none is."""
    rows = await conn.read(Q.GET_EMBEDDING_RECORD)
    row: dict[str, Any] = dict(rows[0]) if rows else {}
    if row.get("dimensions") is None:
        return None
    return EmbeddingRecord(
        model=row["model"],
        dimensions=int(row["dimensions"]),
        similarity=row["similarity"] or "cosine",
        vector_property=row["property"] or MAIN.property,
        reembed_model=row["reembed_model"],
        reembed_dimensions=row["reembed_dimensions"],
        reembed_similarity=row["reembed_similarity"],
        reembed_phase=row["reembed_phase"],
        reembed_cursor=row["reembed_cursor"],
    )


async def index_record(conn: Neo4jConnection) -> EmbeddingRecord | None:
    """What a database made before embedders were recorded holds: the default model at its
    vector index's own dimensions (SHOW INDEXES); None without a vector index."""
    for index in await conn.read(Q.GET_VECTOR_INDEXES):
        if index["name"] in (MAIN.index, MAIN.index_lts, *FORMER_INDEXES) and index["dimensions"] is not None:
            similarity = str(index["similarity"] or "cosine").lower()  # the server says COSINE
            return EmbeddingRecord(DEFAULT_MODEL_ID, int(index["dimensions"]), similarity)
    return None


async def embedding_record(conn: Neo4jConnection) -> EmbeddingRecord | None:
    """The recorded embedder; for a database made before embedders were recorded, the default
    model at its vector index's own dimensions; None for one with no vector index yet."""
    return await stored_record(conn) or await index_record(conn)


async def write_record(conn: Neo4jConnection, record: EmbeddingRecord) -> None:
    await conn.write(
        Q.UPSERT_EMBEDDING_RECORD,
        model=record.model,
        dimensions=record.dimensions,
        similarity=record.similarity,
        property=record.vector_property,
    )


def mismatch(record: EmbeddingRecord, model: str | None, dimensions: int) -> bool:
    """Whether an embedder of ``model`` and ``dimensions`` cannot serve ``record``'s vectors
    (a model named on one side only is not a mismatch: a stand-in, or a record made by one)."""
    if record.dimensions != dimensions:
        return True
    return model is not None and record.model is not None and model != record.model


async def check_embedder(
    conn: Neo4jConnection, model: str | None, dimensions: int, *, similarity: str = "cosine", record: bool = True
) -> EmbeddingRecord:
    """The database's embedding record after checking an embedder of ``model`` and
    ``dimensions`` against it; with ``record``, a database that has none (new, or made before
    embedders were recorded) gets one, naming ``model`` when the record named none.

    Raises:
        EmbedderMismatchError: The database's vectors come from another model or size.
    """
    check_vector_options(dimensions, similarity)
    stored = await stored_record(conn)
    found = stored or await index_record(conn)
    if found is not None and mismatch(found, model, dimensions):
        raise EmbedderMismatchError(found, model, dimensions)
    if found is None:
        found = EmbeddingRecord(model, dimensions, similarity)
    elif found.model is None and model is not None:
        found = replace(found, model=model)
    elif stored is not None:
        return found
    if record:
        await write_record(conn, found)
    return found
