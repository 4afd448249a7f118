"""Consolidation benchmark: a full ``run`` over one scope of N fresh memories (half
episodic, half semantic, with NEXT / MENTIONS edges in proportion), and ``quick_nap`` over a
fresh 10k scope. Prints one table of per-phase durations per run.

    python -m benchmarks.consolidation_bench                  # 10k run, 100k run, 10k quick_nap
    python -m benchmarks.consolidation_bench --sizes 10000    # skip the 100k run

Talks to ``HIPPOGRAPH_NEO4J_URI`` (``HIPPOGRAPH_NEO4J_PASSWORD``) when set; otherwise starts a
throwaway local Neo4j (``LocalNeo4j``: heap 3 GB, page cache 2 GB, and the default 512 MiB of
transaction memory — no transaction setting raised) and stops it at the end. Every size gets its own fresh
root scope, erased afterwards. Query plans are warmed on a tiny scope first (a cold plan cache
costs a few seconds once per server, not per run); that warm-up is reported too.

The data: memories written over the last 3 hours (so co-occurrence has dense windows),
episodes in sessions of 10 turns chained by NEXT, each mentioning one or two facts; 10 % of
episodes are recurring "events"; facts carry random 384-d embeddings (1 % near-duplicates),
labels with 200 shared prefixes, and some access counts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from hippograph.consolidation import ConsolidationReport, SleepConsolidator
from hippograph.dbms import LocalNeo4j
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate

BATCH = 2000
PREFIXES = [f"topic{i:03d}" for i in range(200)]
ACTIONS = ["deploy the api", "rotate the keys", "restart the worker", "run the backup", "clear the cache"]


HEAP = "3g"
PAGECACHE_MB = 2048


@asynccontextmanager
async def server(
    console: Console, heap: str = HEAP, pagecache_mb: int = PAGECACHE_MB
) -> AsyncIterator[tuple[str, str | None]]:
    """(uri, password) of ``HIPPOGRAPH_NEO4J_URI`` when set, else of a throwaway local Neo4j with
    the launcher's default transaction memory (``dbms.memory.transaction.total.max`` 512 MiB:
    nothing raised), stopped at the end."""
    uri = os.environ.get("HIPPOGRAPH_NEO4J_URI")
    if uri:
        console.print(f"using {uri} (its own transaction memory setting)")
        yield uri, os.environ.get("HIPPOGRAPH_NEO4J_PASSWORD")
        return
    with tempfile.TemporaryDirectory(prefix="hippograph-bench-") as tmp:
        local = LocalNeo4j(Path(tmp), heap=heap, pagecache_mb=pagecache_mb, stop_with_parent=True)
        console.print(
            f"starting a local Neo4j (heap {heap}, page cache {pagecache_mb} MiB, "
            f"transaction memory {local.tx_max_mb} MiB) …"
        )
        status = local.start(timeout=300)
        try:
            assert status.uri is not None
            yield status.uri, local.password()
        finally:
            local.stop()


@asynccontextmanager
async def connection(console: Console) -> AsyncIterator[Neo4jConnection]:
    async with server(console) as (uri, password):
        conn = await Neo4jConnection.connect(uri, password=password)
        try:
            await migrate(conn)
            yield conn
        finally:
            await conn.close()


def world(n: int, now: float, seed: int, tag: str | None = None) -> tuple[list[MemoryNode], list[MemoryEdge]]:
    """``n`` fresh memories (n/2 episodic, n/2 semantic) and their edges; with ``tag`` the ids
    are ``<tag>-f<i>`` / ``<tag>-e<i>`` (the same world twice has the same ids), else random."""

    def ids(kind: str, i: int) -> dict[str, str]:
        return {"id": f"{tag}-{kind}{i}"} if tag else {}

    rng = random.Random(seed)
    gen = np.random.default_rng(seed)
    half = n // 2
    span = 3 * 3600.0
    vecs = gen.normal(size=(half, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    for i in range(0, half, 100):  # 1 % near-duplicates
        if i + 1 < half:
            v = vecs[i] + gen.normal(scale=0.01, size=384).astype(np.float32)
            vecs[i + 1] = v / np.linalg.norm(v)
    facts = []
    for i in range(half):
        at = now - span + span * i / half
        prefix = PREFIXES[i % len(PREFIXES)]
        facts.append(
            MemoryNode(
                **ids("f", i),
                layer=Layer.SEMANTIC,
                label=f"{prefix}: fact {i}",
                content=f"{prefix} detail number {i}",
                embedding=vecs[i].tolist(),
                created_at=at,
                updated_at=at,
                access_count=3 if i % 7 == 0 else 0,
                importance=rng.choice([3.0, 5.0, 6.0]),
            )
        )
    episodes, edges = [], []
    for i in range(half):
        at = now - span + span * (i + 0.5) / half
        event = i % 10 == 9
        label = ACTIONS[(i // 10) % len(ACTIONS)] if event else f"turn {i}"
        node = MemoryNode(
            **ids("e", i),
            layer=Layer.EPISODIC,
            label=label,
            content=f"User: message {i}. | Agent: reply {i}.",
            properties={"kind": "event" if event else "turn", "session_id": f"s{i // 10}"},
            occurred_at=at,
            created_at=at,
            updated_at=at,
            importance=3.0,
        )
        episodes.append(node)
        if i % 10:
            edges.append(
                MemoryEdge(source=episodes[i - 1].id, target=node.id, relationship=Relationship.NEXT, created_at=at)
            )
        for k in {rng.randrange(half) for _ in range(rng.choice([1, 2]))}:
            edges.append(
                MemoryEdge(source=node.id, target=facts[k].id, relationship=Relationship.MENTIONS, created_at=at)
            )
    return [*facts, *episodes], edges


async def seed(store: GraphStore, scope: Scope, n: int, now: float, console: Console, tag: str | None = None) -> None:
    nodes, edges = world(n, now, seed=n, tag=tag)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"writing {n:,} memories and {len(edges):,} edges", total=len(nodes) + len(edges))
        for i in range(0, len(nodes), BATCH):
            await store.add_nodes(scope, nodes[i : i + BATCH])
            progress.advance(task, len(nodes[i : i + BATCH]))
        for i in range(0, len(edges), BATCH):
            await store.upsert_edges(scope, edges[i : i + BATCH])
            progress.advance(task, len(edges[i : i + BATCH]))


def table(title: str, report: ConsolidationReport, wall: float) -> Table:
    out = Table(title=f"{title} — {wall:.2f} s wall, {report.duration_ms / 1000:.2f} s in phases")
    out.add_column("#", justify="right")
    out.add_column("phase")
    out.add_column("ms", justify="right")
    out.add_column("counts")
    for p in report.phases_run:
        counts = ", ".join(f"{k} {v:,}" for k, v in p.counts.items()) or (p.skip_reason or "")
        out.add_row(p.number, p.name.value, f"{p.duration_ms:,.0f}", counts)
    return out


async def timed(console: Console, title: str, call: asyncio.Future[ConsolidationReport] | object) -> float:
    started = time.perf_counter()
    report = await call  # type: ignore[misc]
    wall = time.perf_counter() - started
    console.print(table(title, report, wall))
    return wall


async def warm_up(store: GraphStore, sleeper: SleepConsolidator, parent: Scope, now: float, console: Console) -> float:
    """Plan every consolidation query against the current statistics (on a tiny scope), so the
    timed run measures execution, not Cypher planning; return how long that took."""
    tiny = parent.child("warmup", uuid.uuid4().hex[:8])
    await seed(store, tiny, 400, now, console)
    started = time.perf_counter()
    await sleeper.run(tiny)
    await sleeper.quick_nap(tiny)
    return time.perf_counter() - started


async def main(sizes: list[int], quick_size: int) -> None:
    console = Console()
    now = time.time()
    results: list[tuple[str, float]] = []
    async with connection(console) as conn:
        store = GraphStore(conn)
        sleeper = SleepConsolidator(conn)
        bench = Scope.root("org", f"bench-{uuid.uuid4().hex[:8]}")
        try:
            for n in sizes:
                scope = bench.child("size", str(n))
                await seed(store, scope, n, now, console)
                results.append(
                    (
                        f"query planning after seeding {n:,} (warm-up)",
                        await warm_up(store, sleeper, bench, now, console),
                    )
                )
                results.append(
                    (
                        f"run, {n:,} fresh memories",
                        await timed(console, f"run over {n:,} fresh memories", sleeper.run(scope)),
                    )
                )
                results.append(
                    (
                        f"second run, same {n:,}",
                        await timed(console, f"run again over the same {n:,}", sleeper.run(scope)),
                    )
                )
            quick = bench.child("size", f"quick{quick_size}")
            await seed(store, quick, quick_size, now, console)
            results.append(("query planning (warm-up)", await warm_up(store, sleeper, bench, now, console)))
            for attempt in (1, 2, 3):  # each nap folds the next 50 events
                title = f"quick_nap #{attempt} over {quick_size:,} fresh memories"
                wall = await timed(console, title, sleeper.quick_nap(quick))
                results.append((f"quick_nap #{attempt}, {quick_size:,} memories", wall))
        finally:
            if os.environ.get("HIPPOGRAPH_NEO4J_URI"):  # a throwaway server needs no cleaning
                try:
                    await store.delete_subtree(bench)
                except Exception as exc:  # one statement may not fit the transaction memory limit
                    console.print(f"[yellow]could not erase {bench.key}: {exc}[/yellow]")
    summary = Table(title="consolidation benchmark")
    summary.add_column("case")
    summary.add_column("wall s", justify="right")
    for name, wall in results:
        summary.add_row(name, f"{wall:.2f}")
    console.print(summary)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--quick-size", type=int, default=10_000)
    args = parser.parse_args()
    asyncio.run(main(args.sizes, args.quick_size))
