"""Store write/read benchmark.

Batch-writes N memories with random 384-d embeddings through GraphStore.add_nodes (embedding
time excluded; ``--cues``: with their session, keyword and name cues, as ingest writes them),
then times get_node on random ids, and reports the Neo4j process's peak RSS.

    python -m benchmarks.store_bench --count 100000 --batch 1000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import uuid

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from benchmarks._server import RssSampler, bench_store
from hippograph.cues import cues_of
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def memory_batches(
    rng: np.random.Generator, scopes: list[Scope], count: int, batch: int, words: list[str]
) -> list[tuple[Scope, list[MemoryNode]]]:
    """``count`` episodic memories with random unit 384-d vectors, in batches spread over ``scopes``
    round-robin (store_bench and writes_ab write the same data)."""
    batches = []
    for start in range(0, count, batch):
        n = min(batch, count - start)
        vecs = rng.normal(size=(n, 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        nodes = [
            MemoryNode(
                layer=Layer.EPISODIC,
                label=f"event {start + i}",
                content=f"benchmark memory number {start + i} about {words[(start + i) % len(words)]}",
                session_id=f"s{(start + i) // 20}",
                embedding=v.tolist(),
            )
            for i, v in enumerate(vecs)
        ]
        batches.append((scopes[(start // batch) % len(scopes)], nodes))
    return batches


async def main(count: int, batch: int, reads: int, concurrency: int, cues: bool) -> None:
    console = Console()
    rng = np.random.default_rng(1)
    org = Scope.root("org", f"bench-{uuid.uuid4().hex[:6]}")
    scopes = [org.child("user", f"u{i}").child("conversation", f"c{j}") for i in range(10) for j in range(10)]
    words = [f"topic{i} Ann{i % 7}" for i in range(500)]  # keyword and name cues shared by a few memories
    async with bench_store() as (store, pid):
        for s in scopes:
            await store.ensure_scope(s)
        ids: list[str] = []
        batches = memory_batches(rng, scopes, count, batch, words)
        ids.extend(n.id for _, nodes in batches for n in nodes)
        with RssSampler(pid) as rss, Progress(console=console) as progress:
            task = progress.add_task("writing", total=count)
            sem = asyncio.Semaphore(concurrency)

            async def write(scope: Scope, nodes: list[MemoryNode]) -> None:
                async with sem:
                    await store.add_nodes(scope, nodes, cues={n.id: cues_of(n) for n in nodes} if cues else None)
                progress.advance(task, len(nodes))

            t0 = time.perf_counter()
            await asyncio.gather(*(write(s, b) for s, b in batches))
            write_s = time.perf_counter() - t0
            id_scope = {nid: s for s, b in batches for nid in (n.id for n in b)}
            sample = random.Random(2).sample(ids, min(reads, len(ids)))
            lat = []
            for nid in sample:
                t = time.perf_counter()
                node = await store.get_node(id_scope[nid], nid)
                lat.append((time.perf_counter() - t) * 1000)
                assert node is not None
        title = f"store benchmark: {count:,} memories, batches of {batch}, {concurrency} writers"
        table = Table(title=title + (", with cues" if cues else ""))
        for col in ("metric", "value"):
            table.add_column(col)
        table.add_row("write throughput", f"{count / write_s:,.0f} memories/s ({write_s:.1f} s)")
        table.add_row("get_node p50 / p95", f"{pct(lat, 50):.2f} / {pct(lat, 95):.2f} ms ({len(lat)} reads)")
        table.add_row("Neo4j peak RSS", f"{rss.peak / 2**20:,.0f} MiB" if pid else "n/a (external server)")
        console.print(table)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--reads", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--cues", action="store_true", help="write each memory's session / keyword / name cues too")
    a = ap.parse_args()
    asyncio.run(main(a.count, a.batch, a.reads, a.concurrency, a.cues))
