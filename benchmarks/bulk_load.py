"""Populate a benchmark database of a million memories in minutes.

The store's write path (``recall_bench.populate``) writes every memory through its vector,
fulltext and cue indexes, one transaction per batch: hours for 1M memories on a loaded
machine. Here the same memories (``recall_bench.leaf_memories``: same text, vectors,
sessions, NEXT edges) are turned into the graph the store would write — property maps from
the store's own ``node_to_props`` / ``edge_to_props``, cues from ``cues_of``, Scope nodes
with PARENT and IN_SCOPE — as CSV files, loaded offline with ``neo4j-admin database import``
(the launcher's own Neo4j jars), after which ``migrate`` builds the constraints and indexes
over the loaded data in one pass each.

Differences from the write path, none read by recall: an empty list property (an edge's
``source_episodic_ids``) is absent instead of empty; every cue's ``created_at`` is the load's.
"""

from __future__ import annotations

import json
import multiprocessing
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.recall_bench import leaf_memories, tree, vocabulary
from hippograph import cues
from hippograph.cues import cues_of
from hippograph.dbms import LocalNeo4j
from hippograph.dbms.admin_import import admin_import
from hippograph.scope import Scope
from hippograph.store.mapping import edge_to_props, layer_label, node_to_props, scope_rows


class Vector(str):
    """An embedding already written as a CSV field (``float[]``: float32, as the store writes
    embeddings)."""


QUANTUM = 10_000
"""Embeddings are written to 1/QUANTUM (4 decimals): formatting 384 floats per memory in
full was most of the CSV time, and the vectors are random anyway."""
_DECIMALS = {i: repr(i / QUANTUM) for i in range(-QUANTUM, QUANTUM + 1)}


def vector_cell(v: np.ndarray) -> Vector:
    return Vector('"' + ";".join([_DECIMALS[i] for i in np.rint(v * QUANTUM).astype(int).tolist()]) + '"')


def cell(value: Any) -> str:
    """One CSV field as ``neo4j-admin import`` reads it (None: no property)."""
    if isinstance(value, Vector):
        return value
    if value is None or value == []:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return '"' + ";".join(map(str if isinstance(value[0], str) else repr, value)) + '"'
    return '"' + str(value).replace('"', '""') + '"'


def column(name: str, sample: Any) -> str:
    """The header entry of a property, typed from a sample value."""
    if isinstance(sample, Vector):
        return f"{name}:float[]"
    if isinstance(sample, bool):
        return f"{name}:boolean"
    if isinstance(sample, int):
        return f"{name}:long"
    if isinstance(sample, float):
        return f"{name}:double"
    if isinstance(sample, list):
        return f"{name}:{'double' if sample and isinstance(sample[0], float) else 'string'}[]"
    return name


class Table:
    """One CSV file set (a header file and one data file per leaf) of one node or
    relationship kind; its property columns are fixed by the first row."""

    def __init__(self, folder: Path, name: str, lead: list[str]) -> None:
        self.folder, self.name, self.lead = folder, name, lead
        self.keys: list[str] | None = None

    def header(self, props: dict[str, Any]) -> None:
        self.keys = sorted(props)
        head = self.lead + [column(k, props[k]) for k in self.keys]
        (self.folder / f"{self.name}-header.csv").write_text(",".join(head) + "\n")

    def rows(self, part: int, rows: Iterable[tuple[list[str], dict[str, Any]]]) -> None:
        with open(self.folder / f"{self.name}-{part:04d}.csv", "w") as out:
            for lead, props in rows:
                if self.keys is None:
                    self.header(props)
                assert self.keys is not None
                extra = set(props) - set(self.keys)
                if extra:
                    raise ValueError(f"{self.name}: properties missing from the header: {extra}")
                out.write(",".join([*lead, *(cell(props.get(k)) for k in self.keys)]) + "\n")


def memoise_stems() -> None:
    """The Porter stemmer, memoised per word (same stems: the text has a 5,000-word
    vocabulary, and stemming was most of the CSV writing time)."""
    stemmer = cues._stemmer()
    if getattr(stemmer, "memoised", False):
        return
    stemmer.memoised = True
    stem = stemmer.stemWord
    seen: dict[str, str] = {}

    def cached(word: str) -> str:
        if word not in seen:
            seen[word] = stem(word)
        return seen[word]

    stemmer.stemWord = cached


def write_leaf(args: tuple[Path, int, int, str, int]) -> list[float]:
    """The CSV files of leaf ``index``; returns its first vector (a query probe)."""
    folder, size, index, root, per = args
    memoise_stems()
    leaf = tree(root)[index]
    nodes, edges, vecs = leaf_memories(size, index, leaf, per, vocabulary(size))
    now, token = time.time(), uuid.uuid4().hex
    cues: dict[tuple[str, str], dict[str, Any]] = {}
    has_cue: list[tuple[list[str], dict[str, Any]]] = []
    for node in nodes:
        for cue in cues_of(node):
            row = cue.row()
            key = (row["kind"], row["key"])
            if key not in cues:
                cues[key] = {"scope_key": leaf.key, **row, "created_at": now, "created_by": token}
            has_cue.append(([f"m{node.id}", f"c{leaf.key}|{key[0]}|{key[1]}", "HAS_CUE"], {}))
    scope_id = f"s{leaf.key}"
    for name, lead, rows in (
        (
            "memories",
            [":ID", ":LABEL"],
            (
                (
                    [f"m{n.id}", f"Memory;{layer_label(n.layer)}"],
                    {**node_to_props(n, leaf), "embedding": vector_cell(v)},
                )
                for n, v in zip(nodes, vecs, strict=True)
            ),
        ),
        ("cues", [":ID", ":LABEL"], (([f"c{leaf.key}|{k}|{c}", "Cue"], v) for (k, c), v in cues.items())),
        ("has_cue", [":START_ID", ":END_ID", ":TYPE"], has_cue),
        (
            "in_scope",
            [":START_ID", ":END_ID", ":TYPE"],
            [([f"m{n.id}", scope_id, "IN_SCOPE"], {}) for n in nodes]
            + [([f"c{leaf.key}|{k}|{c}", scope_id, "IN_SCOPE"], {}) for k, c in cues],
        ),
        (
            "next",
            [":START_ID", ":END_ID", ":TYPE"],
            (
                ([f"m{e.source}", f"m{e.target}", e.relationship.value], {**edge_to_props(e), "scope_key": leaf.key})
                for e in edges
            ),
        ),
    ):
        Table(folder, name, lead).rows(index, rows)
    return [i / QUANTUM for i in np.rint(vecs[0] * QUANTUM).astype(int).tolist()]


def write_scopes(folder: Path, leaves: list[Scope]) -> None:
    rows = {r["key"]: r for leaf in leaves for r in scope_rows(leaf)}
    nodes = Table(folder, "scopes", [":ID", ":LABEL"])
    nodes.rows(
        0, (([f"s{k}", "Scope"], {f: r[f] for f in ("key", "kind", "id", "depth", "name")}) for k, r in rows.items())
    )
    parents = Table(folder, "parents", [":START_ID", ":END_ID", ":TYPE"])
    parents.rows(0, (([f"s{k}", f"s{r['parent_key']}", "PARENT"], {}) for k, r in rows.items() if r["parent_key"]))


def files_of(folder: Path, name: str) -> str:
    return ",".join(str(p) for p in [folder / f"{name}-header.csv", *sorted(folder.glob(f"{name}-[0-9]*.csv"))])


def bulk_load(server: LocalNeo4j, size: int, *, processes: int = 2, heap: str = "2g") -> dict[str, Any]:
    """Write the CSV files of ``size`` memories and import them into ``server``'s (stopped,
    empty) data folder. Returns the tree's root, the probes and the load's timings."""
    if server.status().running:
        raise RuntimeError(f"{server.data_dir}: the server runs; the import needs it stopped")
    folder = server.data_dir / "import-csv"
    folder.mkdir(parents=True, exist_ok=True)
    root = uuid.uuid4().hex[:6]
    leaves = tree(root)
    t0 = time.perf_counter()
    write_scopes(folder, leaves)
    jobs = [(folder, size, i, root, size // len(leaves)) for i in range(len(leaves))]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        probes = pool.map(write_leaf, jobs, chunksize=1)
    t_csv = time.perf_counter()
    nodes = [files_of(folder, name) for name in ("memories", "cues", "scopes")]
    relationships = [files_of(folder, name) for name in ("has_cue", "in_scope", "next", "parents")]
    admin_import(server, nodes, relationships, threads=processes, heap=heap)
    t_import = time.perf_counter()
    for p in folder.glob("*.csv"):
        p.unlink()
    return {
        "root": root,
        "probes": probes,
        "csv_seconds": round(t_csv - t0, 1),
        "import_seconds": round(t_import - t_csv, 1),
    }


if __name__ == "__main__":  # a quick look at one leaf's rows; a whole load: recall_ab --bulk
    import argparse

    ap = argparse.ArgumentParser(
        description="Write the CSV files of one demo leaf (1,000 memories) into OUT and print its first probe values. "
        "A whole load runs through `python -m benchmarks.recall_ab --bulk`."
    )
    ap.add_argument("out", type=Path, help="folder for the CSV files")
    out = ap.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    write_scopes(out, tree("demo"))
    print(json.dumps(write_leaf((out, 1000, 0, "demo", 10))[:3]))
