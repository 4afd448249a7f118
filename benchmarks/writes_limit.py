"""Batched memory writes against the raw vector insert rate, on the same server in one run.

The vector index's insert cost is most of a memory write's cost, so the rate at which the
server takes bare vectors into an index configured as the memories' one (384 dimensions,
cosine, the scope key as a filter property; a label of its own) is the ceiling of the write
path. Each round times each path, rotating which goes first, with the same vectors, batch size
and writers:

- ``raw``: ``UNWIND`` rows of (scope key, embedding) into ``CREATE`` + ``setNodeVectorProperty``;
- ``store``: ``GraphStore.add_nodes`` of the same number of memories with their session,
  keyword and name cues (``cues_of`` inside the timing), as ``store_bench --cues`` and
  ``writes_ab``'s ``store`` workload write them; embedding excluded;
- ``bare``: the same memories without cues (where the rest of a write's time goes).

    python -m benchmarks.writes_limit --count 10000 --batch 1000 --writers 2 --rounds 4

Uses the server of ``HIPPOGRAPH_NEO4J_URI`` when set, else a throwaway local one. Prints every
round's rates and the median of store ÷ raw (rounds rotate which path goes first).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable

import numpy as np
from rich.console import Console
from rich.table import Table

from benchmarks._cypher import run_file
from benchmarks._server import bench_neo4j
from benchmarks.store_bench import memory_batches
from hippograph.cues import cues_of
from hippograph.models import MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate

TOPICS = [f"topic{i} Ann{i % 7}" for i in range(500)]


async def in_parallel(jobs: list[Callable[[], Awaitable[None]]], writers: int) -> float:
    sem = asyncio.Semaphore(writers)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with sem:
            await job()

    t0 = time.perf_counter()
    await asyncio.gather(*(one(j) for j in jobs))
    return time.perf_counter() - t0


async def raw_round(conn: Neo4jConnection, batches: list[tuple[Scope, list[MemoryNode]]], writers: int) -> float:
    async def write(scope: Scope, nodes: list[MemoryNode]) -> None:
        rows = [
            {"scope_key": scope.key, "scope_lo": scope.chain_lo, "scope_hi": scope.chain_hi, "embedding": n.embedding}
            for n in nodes
        ]
        await run_file(conn, "create_raw_vectors", rows=rows)

    return await in_parallel([functools.partial(write, s, b) for s, b in batches], writers)


async def store_round(
    store: GraphStore, batches: list[tuple[Scope, list[MemoryNode]]], writers: int, *, cues: bool = True
) -> float:
    async def write(scope: Scope, nodes: list[MemoryNode]) -> None:
        await store.add_nodes(scope, nodes, cues={n.id: cues_of(n) for n in nodes} if cues else None)

    return await in_parallel([functools.partial(write, s, b) for s, b in batches], writers)


async def main(a: argparse.Namespace) -> None:
    console = Console()
    rates: dict[str, list[float]] = {"raw": [], "store": [], "bare": []}
    with bench_neo4j(a.heap, a.pagecache_mb) as neo4j:
        conn = await Neo4jConnection.connect(neo4j.uri, password=neo4j.password)
        try:
            await migrate(conn)
            store = GraphStore(conn)
            await run_file(conn, "create_vector_index_raw_vector")
            await run_file(conn, "await_raw_vector_index")
            rng = np.random.default_rng(7)
            for r in range(-1, a.rounds):  # round -1 warms the server's JIT and caches: not counted
                org = Scope.root("org", f"limit{uuid.uuid4().hex[:8]}")
                scopes = [
                    org.child("user", f"u{i}").child("conversation", f"c{j}") for i in range(10) for j in range(10)
                ]
                for s in scopes:
                    await store.ensure_scope(s)
                count = a.count if r >= 0 else min(a.count, 2000)
                batches = memory_batches(rng, scopes, count, a.batch, TOPICS)
                paths = ["raw", "store", "bare"]
                for name in paths[r % 3 :] + paths[: r % 3] if r >= 0 else paths:
                    if name == "raw":
                        seconds = await raw_round(conn, batches, a.writers)
                    elif name == "store":
                        seconds = await store_round(store, batches, a.writers)
                    else:  # the same memories under new ids
                        fresh = [(s, [n.model_copy(update={"id": uuid.uuid4().hex}) for n in b]) for s, b in batches]
                        seconds = await store_round(store, fresh, a.writers, cues=False)
                    if r >= 0:
                        rates[name].append(count / seconds)
                        console.print(
                            f"round {r + 1}/{a.rounds} {name}: {count / seconds:,.0f}/s ({count:,} in {seconds:.1f} s)"
                        )
            if neo4j.pid is None:  # someone else's server: leave no benchmark nodes behind
                await run_file(conn, "delete_raw_vectors")
                await run_file(conn, "drop_raw_vector_index")
        finally:
            await conn.close()
    raw, stored = statistics.median(rates["raw"]), statistics.median(rates["store"])
    table = Table(
        title=f"writes vs the raw vector insert: {a.count:,} per round, batches of {a.batch}, "
        f"{a.writers} writers, {a.rounds} rounds"
    )
    for col in ("path", "median /s", "rounds"):
        table.add_column(col)
    table.add_row("raw vector insert", f"{raw:,.0f}", ", ".join(f"{x:,.0f}" for x in rates["raw"]))
    table.add_row("batched memory writes (cues)", f"{stored:,.0f}", ", ".join(f"{x:,.0f}" for x in rates["store"]))
    bare = statistics.median(rates["bare"])
    table.add_row("the same without cues", f"{bare:,.0f}", ", ".join(f"{x:,.0f}" for x in rates["bare"]))
    ratios = [s / w for s, w in zip(rates["store"], rates["raw"], strict=True)]
    table.add_row("store ÷ raw", f"{stored / raw:.1%}", ", ".join(f"{x:.0%}" for x in ratios))
    table.add_row("without cues ÷ raw", f"{bare / raw:.1%}", "")
    console.print(table)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000, help="memories (and raw vectors) per round")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--writers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--pagecache-mb", type=int, default=1024)
    asyncio.run(main(ap.parse_args()))
