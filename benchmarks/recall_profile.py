"""Where recall's time goes, and recall variants side by side in one run.

Populates (once) a local Neo4j with ``--size`` memories exactly as ``recall_bench`` does,
keeps the server and a state file in ``--data-dir`` so later runs reuse them, then times —
interleaved query by query, so machine load hits every variant alike —

* ``raw``: one vector-index query (k = 50) through the driver, the floor;
* ``engine``: ``RecallEngine.recall`` (one round trip; hops 2, session and cue spreading on);
* ``fragments one by one``: the same recall one statement per fragment (the engine's degrade
  path), every round trip timed by statement name; its answers are compared item by item with
  the engine's.

    python -m benchmarks.recall_profile --size 10000 --queries 100 --data-dir .hippograph/benchmarks/r10k
    python -m benchmarks.recall_profile ... --stop      # stop the kept server afterwards

Figures are p50 / p95 in ms and ratios to ``raw`` measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks import bench_dir
from benchmarks._server import RssSampler
from benchmarks.recall_bench import populate, tree, vocabulary
from hippograph.dbms import LocalNeo4j
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from hippograph.store.queries import MemoryQuery

Variant = Callable[[GraphStore, Scope, str, list[float]], Awaitable[Any]]
VARIANTS: dict[str, Callable[[GraphStore], Variant]] = {}
"""Extra variants: name → factory(store) → async fn(store, leaf, text, vector)."""


def _fragments(store: GraphStore) -> Variant:
    engine = RecallEngine(store, HashingEmbeddings(), HOPS2)

    async def one_by_one(params: dict[str, Any]) -> Any:
        row, _ = await engine.repo.search_recall_stages(**params)
        return row

    engine._search = one_by_one  # type: ignore[method-assign]  # the degrade path, always

    async def run(_s: GraphStore, leaf: Scope, text: str, _vector: list[float]) -> Any:
        return await engine.recall(leaf, text, config=HOPS2, now=NOW)

    return run


VARIANTS["fragments one by one"] = _fragments

NOW = time.time()
HOPS2 = RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2))


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1] if len(xs) > 1 else xs[0]


class Timed:
    """Wraps a connection's plain reads (the recall's) so every round trip is timed by statement name."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn
        self.calls: dict[str, list[float]] = collections.defaultdict(list)
        self.per_recall: list[int] = []
        self._orig = conn.read_plain
        self._count = 0

    async def read_plain(self, query: Any, **params: Any) -> Any:
        t = time.perf_counter()
        try:
            return await self._orig(query, **params)
        finally:
            self.calls[str(query.path)].append((time.perf_counter() - t) * 1000)
            self._count += 1

    def __enter__(self) -> Timed:
        self.conn.read_plain = self.read_plain  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.read_plain = self._orig  # type: ignore[method-assign]

    def mark(self) -> None:
        self.per_recall.append(self._count)
        self._count = 0


def same(a: Any, b: Any) -> bool:
    """Same items, same order, scores and score parts equal to 1e-9, same paths."""
    if [i.node.id for i in a.items] != [i.node.id for i in b.items]:
        return False
    for x, y in zip(a.items, b.items, strict=True):
        if abs(x.score - y.score) > 1e-9 or x.path != y.path or x.channels != y.channels:
            return False
        px, py = x.parts.model_dump(), y.parts.model_dump()
        if any(abs((px[f] or 0.0) - (py[f] or 0.0)) > 1e-9 for f in px):
            return False
    return a.activation.capped == b.activation.capped


async def open_store(
    data_dir: Path,
    size: int,
    console: Console,
    *,
    heap: str = "2g",
    pagecache_mb: int = 1536,
    writers: int = 1,
    bulk: bool = False,
) -> tuple[LocalNeo4j, GraphStore, list[Scope], Any]:
    """The kept server of ``data_dir`` (started if down), populated once with ``size``
    memories — through the store (``writers`` leaves at once) or, ``bulk``, by an offline
    import (``bulk_load``) — the state file records the tree's root, the probes and how the
    load went (seconds, settings, the server's peak RSS)."""
    server = LocalNeo4j(data_dir, heap=heap, pagecache_mb=pagecache_mb)
    state_file = data_dir / "profile_state.json"
    load: dict[str, Any] = {"heap": heap, "pagecache_mb": pagecache_mb}
    state: dict[str, Any] = json.loads(state_file.read_text()) if state_file.exists() else {}
    t0 = time.perf_counter()
    if not state and bulk:
        from benchmarks.bulk_load import bulk_load  # here: trees without its launcher helpers serve data too

        imported = bulk_load(server, size, heap=heap)
        console.print(f"imported {size:,}: csv {imported['csv_seconds']} s, import {imported['import_seconds']} s")
        load |= {"how": "neo4j-admin import, then indexes", "csv_seconds": imported["csv_seconds"],
                 "import_seconds": imported["import_seconds"], "indexes": "pending"}  # fmt: skip
        state = {"root": imported["root"], "probes": imported["probes"], "load": load}
        state_file.write_text(json.dumps(state))  # the data is in: a later run only waits for the indexes
    status = server.start(timeout=1800)
    assert status.uri
    conn = await Neo4jConnection.connect(status.uri, password=server.password())
    store = GraphStore(conn)
    with RssSampler(status.pid) as rss:
        t_index = time.perf_counter()
        await migrate(conn, await_seconds=7200)  # after an import: builds every index over the data
        if state and state["load"].get("indexes") != "pending":
            return server, store, tree(state["root"]), state
        if not state:
            root = uuid.uuid4().hex[:6]
            vectors = await populate(store, tree(root), size, console, writers=writers)
            await migrate(conn, await_seconds=7200)  # waits until the indexes have caught up
            load |= {"how": f"store writes, {writers} writers", "seconds": round(time.perf_counter() - t0, 1)}
            state = {"root": root, "probes": [v.tolist() for v in vectors], "load": load}
    if state["load"].get("indexes") == "pending":
        state["load"] |= {"indexes": "online", "index_seconds": round(time.perf_counter() - t_index, 1)}
    state["load"]["peak_rss_mib"] = max(state["load"].get("peak_rss_mib", 0), rss.peak >> 20)
    console.print(f"populated {size:,}: {state['load']}")
    state_file.write_text(json.dumps(state))
    return server, store, tree(state["root"]), state


async def main(size: int, queries: int, data_dir: Path, only: list[str] | None, stop: bool) -> None:
    console = Console()
    data_dir.mkdir(parents=True, exist_ok=True)
    server, store, leaves, _state = await open_store(data_dir, size, console)
    embedder = HashingEmbeddings()
    engine = RecallEngine(store, embedder, HOPS2)
    all_keys = sorted({k for leaf in leaves for k in leaf.ancestor_keys()})

    async def raw(_s: GraphStore, _leaf: Scope, _text: str, vector: list[float]) -> Any:
        return await store.conn.read(
            MemoryQuery.SEARCH_VECTOR_INDEX,
            vector_index=store.conn.capabilities.vector_index,
            vector=vector,
            visible=all_keys,
            layers=None,
            k=50,
            fetch_k=50,
        )

    async def current(_s: GraphStore, leaf: Scope, text: str, _vector: list[float]) -> Any:
        return await engine.recall(leaf, text, config=HOPS2, now=NOW)

    variants: dict[str, Variant] = {"raw": raw, "engine": current}
    variants.update({name: factory(store) for name, factory in VARIANTS.items()})
    if only:
        variants = {k: v for k, v in variants.items() if k in only or k == "raw"}
    rng = random.Random(7)
    vocab = vocabulary(size)  # the words the memories were written in
    work = []
    for q in range(queries):
        leaf = leaves[q % len(leaves)]
        text = f"what about {rng.choice(vocab)} and {rng.choice(vocab)}"
        work.append((leaf, text, await embedder.embed(text)))
    for leaf, text, vec in work[:10]:  # warm-up: plans cached, pages hot
        for fn in variants.values():
            await fn(store, leaf, text, vec)
    lat: dict[str, list[float]] = collections.defaultdict(list)
    stages: dict[str, list[float]] = collections.defaultdict(list)
    mismatches: dict[str, int] = collections.defaultdict(int)
    with Timed(store.conn) as timed:
        for leaf, text, vec in work:
            results: dict[str, Any] = {}
            for name, fn in variants.items():
                t = time.perf_counter()
                result = results[name] = await fn(store, leaf, text, vec)
                lat[name].append((time.perf_counter() - t) * 1000)
                if name not in ("raw", "engine") and "engine" in results:
                    mismatches[name] += not same(results["engine"], result)
                if name.startswith("fragments"):
                    timed.mark()
                if name == "engine":
                    for stage in ("candidates_ms", "activation_ms", "scoring_ms"):
                        stages[stage].append(getattr(result.timings, stage))
                else:
                    timed._count = 0
    table = Table(title=f"recall profile, {size:,} memories, {queries} queries (interleaved)")
    for col in ("what", "p50 ms", "p95 ms", "p95 / raw p95"):
        table.add_column(col)
    base95 = pct(lat["raw"], 95)
    for name, xs in lat.items():
        table.add_row(name, f"{pct(xs, 50):.1f}", f"{pct(xs, 95):.1f}", f"{pct(xs, 95) / base95:.2f}")
    for stage, xs in stages.items():
        table.add_row(f"  engine {stage}", f"{pct(xs, 50):.1f}", f"{pct(xs, 95):.1f}", "")
    for name, bad in mismatches.items():
        table.add_row(f"{name}: recalls differing from engine", f"{bad} / {len(work)}", "", "")
    if timed.per_recall:
        table.add_row("  fragment round trips / recall", f"{statistics.mean(timed.per_recall):.1f}", "", "")
    for qname, xs in sorted(timed.calls.items(), key=lambda kv: -sum(kv[1])):
        table.add_row(
            f"  {qname} ×{len(xs) / max(1, len(work)):.1f}/recall", f"{pct(xs, 50):.1f}", f"{pct(xs, 95):.1f}", ""
        )
    console.print(table)
    await store.conn.close()
    if stop:
        server.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--data-dir", type=Path, default=bench_dir("recall-profile"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--stop", action="store_true")
    a = ap.parse_args()
    asyncio.run(main(a.size, a.queries, a.data_dir, a.only, a.stop))
