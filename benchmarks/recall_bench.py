"""Recall latency at 10k and 100k memories spread over a scope tree.

For each size: memories with synthetic text (a 5,000-word vocabulary), random unit vectors,
sessions chained by NEXT and cue links, spread over org → 5 teams → 5 users → 4
conversations. Then recall from leaf scopes with spreading activation at max_hops 1, 2, 3 (N hops),
timing everything but the query embedding (reported separately, idle and with the other core
busy); in the same run a naive brute-force cosine scan in Cypher over the same memories.

    python -m benchmarks.recall_bench --sizes 10000 100000 --queries 200
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import random
import statistics
import time
import uuid
from importlib.util import find_spec

import numpy as np
from rich.console import Console
from rich.progress import Progress, TaskID
from rich.table import Table

from benchmarks._server import bench_store
from hippograph.cues import cues_of
from hippograph.embeddings import HashingEmbeddings, SentenceTransformerEmbeddings
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.scope import Scope
from hippograph.store import GraphStore
from hippograph.store.queries import MemoryQuery

SESSION = 20

BRUTE_FORCE = MemoryQuery.SEARCH_VECTOR_EXACT


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1]


def tree(root: str) -> list[Scope]:
    org = Scope.root("org", root)
    return [
        org.child("team", f"t{t}").child("user", f"u{u}").child("conversation", f"c{c}")
        for t in range(5)
        for u in range(5)
        for c in range(4)
    ]


def words(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choice(vocab) for _ in range(n))


def vocabulary(size: int) -> list[str]:
    """The 5,000 words the memories of a ``size`` run are written in (queries draw from it too)."""
    rng = random.Random(size)
    return [f"w{i}" + "".join(rng.choice("abcdefgh") for _ in range(4)) for i in range(5000)]


def leaf_memories(
    size: int, index: int, leaf: Scope, per: int, vocab: list[str]
) -> tuple[list[MemoryNode], list[MemoryEdge], np.ndarray]:
    """Leaf ``index``'s memories without their embeddings (its own seeded generators: the
    same text, sessions and vectors however the leaves are written), its NEXT edges, and the
    vectors (row i is memory i's embedding)."""
    lrng = random.Random(size * 1000 + index)
    vecs = np.random.default_rng(size * 1000 + index).normal(size=(per, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    nodes = [
        MemoryNode(
            layer=Layer.EPISODIC,
            content=words(lrng, vocab, 12),
            session_id=f"{leaf.id}-s{i // SESSION}",
            properties={"speaker": lrng.choice(["ann", "bob"])},
        )
        for i in range(per)
    ]
    edges = [
        MemoryEdge(source=a.id, target=b.id, relationship=Relationship.NEXT)
        for a, b in itertools.pairwise(nodes)
        if a.session_id == b.session_id
    ]
    return nodes, edges, vecs


async def populate(
    store: GraphStore, leaves: list[Scope], size: int, console: Console, *, writers: int = 1
) -> list[np.ndarray]:
    """``size`` memories over ``leaves`` through the store's write path, ``writers`` leaves
    at once (separate scopes, separate cues: no lock contention). Returns each leaf's first
    vector (query probes)."""
    vocab = vocabulary(size)
    per = size // len(leaves)
    vectors: list[np.ndarray] = [np.zeros(0)] * len(leaves)
    gate = asyncio.Semaphore(writers)

    async def write_leaf(index: int, leaf: Scope, progress: Progress, task: TaskID) -> None:
        async with gate:
            bare, edges, vecs = leaf_memories(size, index, leaf, per, vocab)
            nodes = [n.model_copy(update={"embedding": v.tolist()}) for n, v in zip(bare, vecs, strict=True)]
            vectors[index] = vecs[0]
            for start in range(0, per, 1000):
                chunk = nodes[start : start + 1000]
                await store.add_nodes(leaf, chunk, cues={n.id: cues_of(n) for n in chunk})
                progress.advance(task, len(chunk))
            for start in range(0, len(edges), 2000):
                await store.upsert_edges(leaf, edges[start : start + 2000], increment=0.0)

    with Progress(console=console) as progress:
        task = progress.add_task(f"writing {size:,} memories", total=size)
        await asyncio.gather(*(write_leaf(i, leaf, progress, task) for i, leaf in enumerate(leaves)))
    return vectors


async def run_size(size: int, queries: int, console: Console, table: Table) -> None:
    async with bench_store(heap="2g", pagecache_mb=1536) as (store, _pid):
        leaves = tree(uuid.uuid4().hex[:6])
        t0 = time.perf_counter()
        probes = await populate(store, leaves, size, console)
        write_s = time.perf_counter() - t0
        table.add_row(f"{size:,}", "ingest without embedding", f"{size / write_s:,.0f} memories/s", "")
        engine = RecallEngine(store, HashingEmbeddings())
        rng = random.Random(7)
        for hops in (1, 2, 3):
            cfg = RecallConfig(track_access=False, activation=ActivationConfig(max_hops=hops))
            lat = []
            for q in range(queries):
                leaf = leaves[q % len(leaves)]
                text = f"what about w{rng.randrange(5000)} and w{rng.randrange(5000)}"
                t = time.perf_counter()
                await engine.recall(leaf, text, config=cfg)
                lat.append((time.perf_counter() - t) * 1000)
            table.add_row(
                f"{size:,}", f"recall, hops = {hops}", f"{pct(lat, 50):.1f} / {pct(lat, 95):.1f} ms", "p50 / p95"
            )
        lat = []
        for q in range(queries):
            leaf = leaves[q % len(leaves)]
            t = time.perf_counter()
            await store.conn.read(
                BRUTE_FORCE, vector=probes[q % len(probes)].tolist(), visible=leaf.ancestor_keys(), layers=None, k=5
            )
            lat.append((time.perf_counter() - t) * 1000)
        table.add_row(
            f"{size:,}",
            "brute-force cosine scan (visible memories)",
            f"{pct(lat, 50):.1f} / {pct(lat, 95):.1f} ms",
            "p50 / p95",
        )
        lat = []
        org = leaves[0].levels[0]
        for q in range(queries):
            t = time.perf_counter()
            await store.conn.read(
                BRUTE_FORCE,
                vector=probes[q % len(probes)].tolist(),
                visible=[f"{org.kind}:{org.id}"] + [s.key for s in leaves],
                layers=None,
                k=5,
            )
            lat.append((time.perf_counter() - t) * 1000)
        table.add_row(
            f"{size:,}",
            "brute-force cosine scan (all memories)",
            f"{pct(lat, 50):.1f} / {pct(lat, 95):.1f} ms",
            "p50 / p95",
        )


def _busy(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    while not stop.is_set():
        pass


async def embed_latency(table: Table, n: int = 200) -> None:
    """Query embedding on one CPU thread, torch and ONNX Runtime interleaved text by text (the
    same load hits both), idle and with the other core busy; then batched ingest throughput."""
    runtimes: dict[str, SentenceTransformerEmbeddings] = {"torch": SentenceTransformerEmbeddings(cache_size=0)}
    if find_spec("onnxruntime") and find_spec("onnx"):
        from hippograph.embeddings import OnnxMiniLMEmbeddings  # imported here: recall_ab's workers run older trees

        runtimes["ONNX Runtime"] = OnnxMiniLMEmbeddings(cache_size=0)
    for embedder in runtimes.values():
        await embedder.embed("warm up")
    texts = [f"when did Caroline go to the support group number {i}?" for i in range(n)]
    for label, busy in (("idle", False), ("other core busy", True)):
        stop = multiprocessing.Event()
        proc = multiprocessing.Process(target=_busy, args=(stop,)) if busy else None
        if proc:
            proc.start()
        lat: dict[str, list[float]] = {name: [] for name in runtimes}
        for text in texts:
            for name, embedder in runtimes.items():
                t = time.perf_counter()
                await embedder.embed(text + label)
                lat[name].append((time.perf_counter() - t) * 1000)
        if proc:
            stop.set()
            proc.join()
        for name, xs in lat.items():
            table.add_row(
                "-",
                f"query embedding ({label}, 1 {name} thread)",
                f"{pct(xs, 50):.1f} / {pct(xs, 95):.1f} ms",
                "p50 / p95",
            )
    for name, embedder in runtimes.items():
        t = time.perf_counter()
        await embedder.embed_batch([f"memory text number {i} about something" for i in range(2000)])
        rate = 2000 / (time.perf_counter() - t)
        table.add_row("-", f"ingest embedding throughput (MiniLM on {name}, batched)", f"{rate:,.0f} texts/s", "")


async def main(sizes: list[int], queries: int, *, embedding: bool = True) -> None:
    console = Console()
    table = Table(title="recall benchmark (times exclude the query embedding unless stated)")
    for col in ("memories", "what", "value", "unit"):
        table.add_column(col)
    if embedding:
        await embed_latency(table)
    for size in sizes:
        await run_size(size, queries, console, table)
    console.print(table)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-embedding", action="store_true", help="skip the query-embedding rows")
    a = ap.parse_args()
    asyncio.run(main(a.sizes, a.queries, embedding=not a.no_embedding))
