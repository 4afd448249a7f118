"""A large history poured into an empty local database at once (``hippograph import --bulk``).

The file is read and validated whole, missing embeddings are computed in batches, and the graph
the online path would write (the same memories, cues, scopes and edges, property for property)
is written as CSV files and loaded by Neo4j's offline importer with the server stopped; the
server is then started and the indexes are built once over the loaded data. Two inputs:

* an export (``hippograph export``: a header line, memories, edges), ids kept — the graph
  ``hippograph import FILE`` would write;
* a conversation (``--scope``): a JSON list of turns, as ``hippograph ingest`` takes, or one
  turn per line — the graph ``hippograph ingest`` would write.

It refuses a database that holds anything but its schema record: an offline import replaces the
whole database.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hippograph.app.api.export import parse_lines
from hippograph.app.api.repository import ApiRepository, ExportRepository
from hippograph.cues import cues_of
from hippograph.dbms import LocalNeo4j
from hippograph.dbms.admin_import import admin_import
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import ConflictError, InvalidInputError
from hippograph.memory.ingest import ConversationTurn, turn_nodes
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection, migrate
from hippograph.store.bulk_csv import CsvGraph, complete_import
from hippograph.store.vectors import check_embedder, model_id_of

EMBED_BATCH = 256
Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: phase is ``embedding`` or ``writing``."""


@dataclass
class BulkInput:
    """What to load: memories (grouped by scope), the texts to embed for those without a vector,
    and edges (grouped by scope)."""

    nodes: list[MemoryNode]
    embed_texts: dict[str, str]
    edges: list[MemoryEdge]
    scope_of: dict[str, str] = field(default_factory=dict)
    """Memory id → the scope it is written into (an export names it on each record)."""
    edge_scope: list[str] = field(default_factory=list)


@dataclass
class BulkReport:
    memories: int
    edges: int
    scopes: list[str]
    embedded: int
    seconds: dict[str, float]

    @property
    def per_second(self) -> float:
        """Memories loaded per second, embedding excluded."""
        loading = sum(v for k, v in self.seconds.items() if k != "embedding")
        return self.memories / loading if loading else 0.0


def read_input(path: Path, scope: Scope | None) -> BulkInput:
    """Parse and validate the whole file (nothing is written for a bad line).

    Raises:
        InvalidInputError: A line or turn is malformed, or a conversation has no ``--scope``
            (or an export was given one).
    """
    text = path.read_text(encoding="utf-8")
    first = text.lstrip().split("\n", 1)[0]
    if '"type"' in first and '"header"' in first:
        if scope is not None:
            raise InvalidInputError("scope", "an export names the scope of every record: give no --scope")
        nodes, edges = parse_lines(text.splitlines())
        return BulkInput(
            nodes=nodes,
            embed_texts={n.id: n.text for n in nodes if n.embedding is None and n.text},
            edges=edges,
            scope_of={n.id: n.scope_key for n in nodes},
            edge_scope=[e.scope_key for e in edges],
        )
    if scope is None:
        raise InvalidInputError("scope", "a conversation file needs --scope (the scope its turns go into)")
    turns = _turns(text)
    nodes, texts, edges = turn_nodes(scope, turns)
    return BulkInput(
        nodes=nodes,
        embed_texts={n.id: t for n, t in zip(nodes, texts, strict=True)},
        edges=edges,
        scope_of={n.id: scope.key for n in nodes},
        edge_scope=[scope.key] * len(edges),
    )


def _turns(text: str) -> list[ConversationTurn]:
    stripped = text.lstrip()
    try:
        items: list[Any] = (
            json.loads(stripped)
            if stripped.startswith("[")
            else [json.loads(line) for line in text.splitlines() if line.strip()]
        )
    except json.JSONDecodeError as exc:
        raise InvalidInputError("file", f"not JSON or JSON lines: {exc}") from None
    turns = []
    for i, item in enumerate(items):
        try:
            turns.append(ConversationTurn.model_validate(item))
        except ValidationError as exc:
            raise InvalidInputError(f"turns[{i}]", str(exc).splitlines()[-1]) from None
    return turns


async def embed_missing(
    data: BulkInput, embedder: EmbeddingProvider, *, progress: Progress | None = None
) -> tuple[list[MemoryNode], int]:
    """The memories with a vector each (computed in batches for those without one)."""
    ids = list(data.embed_texts)
    vectors: dict[str, list[float]] = {}
    for start in range(0, len(ids), EMBED_BATCH):
        chunk = ids[start : start + EMBED_BATCH]
        for node_id, vector in zip(
            chunk, await embedder.embed_batch([data.embed_texts[i] for i in chunk]), strict=True
        ):
            vectors[node_id] = list(vector)
        if progress:
            progress("embedding", min(start + EMBED_BATCH, len(ids)), len(ids))
    nodes = [n.model_copy(update={"embedding": vectors[n.id]}) if n.id in vectors else n for n in data.nodes]
    return nodes, len(vectors)


async def refuse_non_empty(conn: Neo4jConnection) -> None:
    """ConflictError unless the database holds nothing but hippograph's schema record."""
    count = await ExportRepository(conn).stored_nodes()
    if count:
        raise ConflictError(
            f"the database is not empty ({count:,} nodes): an offline import replaces the whole database, "
            "so it loads only into an empty one. Use `hippograph import FILE` (without --bulk) to add to it, "
            "or a new --data-dir"
        )


def write_csv(folder: Path, nodes: Sequence[MemoryNode], data: BulkInput, progress: Progress | None) -> CsvGraph:
    """The CSV files of the graph: memories scope by scope (shallowest first), then edges."""
    graph = CsvGraph(folder)
    groups: dict[str, list[MemoryNode]] = {}
    for node in nodes:
        groups.setdefault(data.scope_of[node.id], []).append(node)
    done = 0
    for key in sorted(groups, key=lambda k: (k.count("/"), k)):
        group = groups[key]
        graph.add_memories(Scope.parse(key), group, {n.id: cues_of(n) for n in group})
        done += len(group)
        if progress:
            progress("writing", done, len(nodes))
    edges: dict[str, list[MemoryEdge]] = {}
    for edge, key in zip(data.edges, data.edge_scope, strict=True):
        edges.setdefault(key, []).append(edge)
    for key in sorted(edges, key=lambda k: (k.count("/"), k)):
        graph.add_edges(Scope.parse(key), edges[key])
    return graph


async def bulk_import(
    server: LocalNeo4j,
    data: BulkInput,
    embedder: EmbeddingProvider,
    *,
    connect: Callable[[str, str], Any],
    progress: Progress | None = None,
) -> BulkReport:
    """Load ``data`` into ``server``'s empty database (started if stopped, running at the end).

    ``connect(uri, password)`` opens a :class:`Neo4jConnection` (the caller's settings: user,
    database).

    Raises:
        ConflictError: The database is not empty (nothing is changed).
        BulkImportError: Neo4j's importer failed.
    """
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    nodes, embedded = await embed_missing(data, embedder, progress=progress)
    seconds["embedding"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    status = server.start()
    conn = await connect(status.uri or server.uri(), server.password())
    try:
        await refuse_non_empty(conn)
    finally:
        await conn.close()
    folder = server.data_dir / "import-csv"
    shutil.rmtree(folder, ignore_errors=True)
    try:
        graph = write_csv(folder, nodes, data, progress)
        node_files, relationship_files = graph.finish()
        seconds["csv"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        server.stop()
        admin_import(server, node_files, relationship_files)
        seconds["import"] = time.perf_counter() - t0
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    t0 = time.perf_counter()
    status = server.start()
    conn = await connect(status.uri or server.uri(), server.password())
    try:
        await complete_import(conn)
        record = await check_embedder(conn, model_id_of(embedder), embedder.dimensions)  # recorded afresh
        await migrate(conn, dimensions=record.dimensions, similarity=record.similarity)
        await ApiRepository(conn).apply_schema()
    finally:
        await conn.close()
    seconds["indexes"] = time.perf_counter() - t0
    return BulkReport(
        memories=graph.memories,
        edges=len(data.edges),
        scopes=sorted(set(data.scope_of.values())),
        embedded=embedded,
        seconds={k: round(v, 2) for k, v in seconds.items()},
    )
