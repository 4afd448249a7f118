"""The graph the store writes, as CSV files for Neo4j's offline ``neo4j-admin database import``.

:class:`CsvGraph` takes memories, their cues and edges scope by scope, exactly as
:meth:`GraphStore.add_nodes <hippograph.store.GraphStore.add_nodes>` and ``upsert_edges`` would
write them (the same property maps, from :func:`~hippograph.store.mapping.upsert_rows`), and
writes them as CSV files with typed headers. Rows are grouped by their columns and types, so
each file's header fits every row in it and every property gets the type the online path
gives it (a Python ``int`` a long, a ``float`` a double, an embedding a ``float[]``).

What CSV cannot say is put right by :func:`~hippograph.store.bulk_csv.complete_import` once
the imported database is up: an empty list property (an edge's ``source_episodic_ids``) is
read back as no property.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from hippograph.cues import Cue
from hippograph.errors import ConflictError, NotFoundError
from hippograph.models import MemoryEdge, MemoryNode, now
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection
from hippograph.store.mapping import edge_to_props, scope_rows, upsert_rows
from hippograph.store.queries import MemoryQuery

ROWS_PER_FILE = 50_000
"""A file is closed and a new one begun after this many rows (many files import in parallel)."""


@dataclass
class _File:
    path: Path
    handle: TextIO
    rows: int = 0


@dataclass
class _Table:
    """One kind of row (``memories``, ``cues``, ``scopes``, ``relationships``): a file per
    column signature, rolled over every :data:`ROWS_PER_FILE` rows."""

    folder: Path
    name: str
    lead: tuple[str, ...]
    files: list[Path] = field(default_factory=list)
    _open: dict[tuple[tuple[str, str], ...], _File] = field(default_factory=dict)

    def add(self, lead: Sequence[str], props: Mapping[str, Any]) -> None:
        typed = sorted((k, _type_of(k, v)) for k, v in props.items() if v is not None and v != [])
        out = self._file(tuple(typed))
        out.handle.write(",".join([*map(_quoted, lead), *(_cell(props[k], t) for k, t in typed)]) + "\n")
        out.rows += 1

    def add_bare(self, lead: Sequence[str]) -> None:
        """A row with no properties (most relationships: ``IN_SCOPE``, ``HAS_CUE``, ``PARENT``)."""
        out = self._file(())
        out.handle.write(",".join(map(_quoted, lead)) + "\n")
        out.rows += 1

    def _file(self, signature: tuple[tuple[str, str], ...]) -> _File:
        """The open file for rows of ``signature``, a new one when there is none or it is full."""
        out = self._open.get(signature)
        if out is None or out.rows >= ROWS_PER_FILE:
            if out is not None:
                out.handle.close()
            path = self.folder / f"{self.name}-{len(self.files):05d}.csv"
            handle = path.open("w", encoding="utf-8", newline="")
            handle.write(",".join([*self.lead, *(f"{k}:{t}" for k, t in signature)]) + "\n")
            out = self._open[signature] = _File(path, handle)
            self.files.append(path)
        return out

    def close(self) -> None:
        for out in self._open.values():
            out.handle.close()
        self._open.clear()


def _type_of(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        if key == "embedding":
            return "float[]"  # the store writes embeddings as float32 (setNodeVectorProperty)
        if all(isinstance(x, str) for x in value):
            return "string[]"
        if all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            return "long[]"
        if all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
            return "double[]"
    raise TypeError(f"property {key!r}: no CSV type for {type(value).__name__} {json.dumps(value)[:60]}")


def _cell(value: Any, kind: str) -> str:
    """One field as the import reads it: numbers bare, text and lists quoted (``""`` is an empty
    string, not a missing value), list items split by ``;``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        if kind == "float[]":  # an embedding: hundreds of floats, no quote among them
            return '"' + ";".join(map(repr, value)) + '"'
        return _quoted(";".join(repr(x) if isinstance(x, float) else str(x) for x in value))
    return _quoted(str(value))


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class CsvGraph:
    """The CSV files of a whole graph, written as memories and edges are added.

    Memories are idempotent by id as in the store (the first copy of an id is kept); an id in two
    scopes is a :class:`~hippograph.errors.ConflictError`, an edge whose end is not a memory
    visible from the edge's scope a :class:`~hippograph.errors.NotFoundError` — both raised
    before the import runs, so a bad file writes nothing."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.created_at = now()
        self._nodes = [
            _Table(folder, "memories", (":ID", ":LABEL")),
            _Table(folder, "cues", (":ID", ":LABEL")),
            _Table(folder, "scopes", (":ID", ":LABEL")),
        ]
        self._relationships = _Table(folder, "relationships", (":START_ID", ":END_ID", ":TYPE"))
        self._scope_of: dict[str, str] = {}  # memory id → its scope key
        self._scopes: set[str] = set()
        self._cues: set[tuple[str, str, str]] = set()
        self._edges: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self.memories = 0

    # -- input ---------------------------------------------------------------------------
    def add_memories(self, scope: Scope, nodes: Sequence[MemoryNode], cues: Mapping[str, Sequence[Cue]]) -> None:
        """Memories of ``scope`` with their cues (``cues``: memory id → its cues)."""
        self._add_scope(scope)
        fresh: list[MemoryNode] = []
        for node in nodes:
            owner = self._scope_of.get(node.id)
            if owner is None:
                self._scope_of[node.id] = scope.key
                fresh.append(node.model_copy(update={"scope_key": scope.key}))
            elif owner != scope.key:
                raise ConflictError(f"ids already used in another scope: {[node.id]}")
        rows, table = upsert_rows(scope, fresh, cues)
        memories, cue_nodes, _ = self._nodes
        relationships = self._relationships
        scope_key = scope.key
        scope_id = _scope_id(scope_key)
        cue_ids: list[str | None] = [None] * len(table)  # the batch's cues, by their index in `table`
        for row in rows:
            embedding = row["props"].get("embedding")
            props = {**row["props"], "embedding": [float(x) for x in embedding] if embedding else None}
            memory_id = _memory_id(row["id"])
            memories.add((memory_id, f"Memory;{row['layer_label']}"), props)
            relationships.add_bare((memory_id, scope_id, "IN_SCOPE"))
            for index in row["cues"]:
                cue_id = cue_ids[index]
                if cue_id is None:
                    cue = table[index]
                    key = (scope_key, cue["kind"], cue["key"])
                    cue_id = cue_ids[index] = _cue_id(*key)
                    if key not in self._cues:
                        self._cues.add(key)
                        cue_nodes.add((cue_id, "Cue"), {"scope_key": scope_key, **cue, "created_at": self.created_at})
                        relationships.add_bare((cue_id, scope_id, "IN_SCOPE"))
                relationships.add_bare((memory_id, cue_id, "HAS_CUE"))
        self.memories += len(rows)

    def add_edges(self, scope: Scope, edges: Sequence[MemoryEdge]) -> None:
        """Edges of ``scope`` (added after the memories they join). As ``upsert_edges`` with no
        increment: a second edge of the same scope, ends and type joins the first one's
        ``source_episodic_ids`` (at most 20) and changes nothing else."""
        self._add_scope(scope)
        visible = set(scope.ancestor_keys())
        for edge in edges:
            ends = (self._scope_of.get(edge.source), self._scope_of.get(edge.target))
            if not all(end in visible for end in ends):
                raise NotFoundError(f"edge ends not visible from {scope.key}: {[(edge.source, edge.target)]}")
            key = (scope.key, edge.source, edge.target, edge.relationship.value)
            props = self._edges.get(key)
            if props is None:
                self._edges[key] = {**edge_to_props(edge), "scope_key": scope.key}
            else:
                known = list(props.get("source_episodic_ids", []))
                props["source_episodic_ids"] = (known + [x for x in edge.source_episodic_ids if x not in known])[:20]

    # -- output --------------------------------------------------------------------------
    def finish(self) -> tuple[list[Path], list[Path]]:
        """Write what is still held and close every file: (node files, relationship files)."""
        for (_, source, target, relationship), props in self._edges.items():
            self._relate(_memory_id(source), _memory_id(target), relationship, props)
        self._edges.clear()
        for table in (*self._nodes, self._relationships):
            table.close()
        return [p for t in self._nodes for p in t.files], list(self._relationships.files)

    def _add_scope(self, scope: Scope) -> None:
        for row in scope_rows(scope):
            if row["key"] in self._scopes:
                continue
            self._scopes.add(row["key"])
            props = {k: v for k, v in row.items() if k != "parent_key"}
            self._nodes[2].add((_scope_id(row["key"]), "Scope"), props)
            if row["parent_key"]:
                self._relate(_scope_id(row["key"]), _scope_id(row["parent_key"]), "PARENT")

    def _relate(self, start: str, end: str, kind: str, props: Mapping[str, Any] | None = None) -> None:
        if props:
            self._relationships.add((start, end, kind), props)
        else:
            self._relationships.add_bare((start, end, kind))


def _memory_id(memory_id: str) -> str:
    return f"m:{memory_id}"


def _cue_id(scope_key: str, kind: str, key: str) -> str:
    return "c:" + hashlib.sha1(f"{scope_key}\x1f{kind}\x1f{key}".encode()).hexdigest()


def _scope_id(key: str) -> str:
    return f"s:{key}"


def iter_rows(path: Path) -> Iterator[list[str]]:
    """The rows of one written file, header first (for tests and diagnostics)."""
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.reader(handle)


async def complete_import(conn: Neo4jConnection) -> None:
    """What the CSV files could not say, written once the imported database is up (before
    :func:`~hippograph.store.migrate` builds the indexes)."""
    await conn.run_autocommit(MemoryQuery.UPDATE_IMPORTED_EDGE_LISTS)
