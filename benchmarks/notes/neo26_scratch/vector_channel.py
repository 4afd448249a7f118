"""Scratch (issue 11, helper neo26): the vector channel alone on a kept recall_ab server — the
in-index SEARCH per visible key (several per-key LIMITs), the exact scan, and the raw global
index query, interleaved query by query on the same server; recall@k of each SEARCH variant
against the exact scan's top k (ids).

    PYTHONPATH=src:. python benchmarks/notes/neo26_scratch/vector_channel.py /work/data-neo26/1m 1000000 --queries 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from pathlib import Path

from benchmarks.recall_bench import tree, vocabulary
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.queries import RetrievalQuery as R
from hippograph.store import LocalNeo4j, Neo4jConnection
from hippograph.store.queries import MemoryQuery


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1]


async def main(data_dir: Path, size: int, queries: int, k: int, limits: list[int]) -> None:
    server = LocalNeo4j(data_dir)
    status = server.status()
    assert status.ready, status.describe()
    conn = await Neo4jConnection.connect(str(status.uri), password=server.password())
    root = json.loads((data_dir / "profile_state.json").read_text())["root"]
    leaves = tree(root)
    all_keys = sorted({key for leaf in leaves for key in leaf.ancestor_keys()})
    vocab = vocabulary(size)
    embedder = HashingEmbeddings()
    rng = random.Random(7)
    lat: dict[str, list[float]] = {"raw k=50": [], "exact": [], **{f"search {n}/key": [] for n in limits}}
    rec: dict[str, list[float]] = {f"search {n}/key": [] for n in limits}
    for q in range(queries + 3):
        leaf = leaves[q % len(leaves)]
        vec = await embedder.embed(f"what about {rng.choice(vocab)} and {rng.choice(vocab)}")
        visible = leaf.ancestor_keys()
        order = list(lat)
        rng.shuffle(order)
        got = {}
        for name in order:
            t = time.perf_counter()
            if name == "raw k=50":
                rows = await conn.read(
                    MemoryQuery.SEARCH_VECTOR_INDEX, vector=vec, visible=all_keys, layers=None, k=50, fetch_k=50
                )
            elif name == "exact":
                rows = await conn.read(R.SEARCH_VECTOR_CANDIDATES_EXACT, vector=vec, visible=visible, layers=None, k=k)
            else:
                n = int(name.split()[1].split("/")[0])
                rows = await conn.read(
                    R.SEARCH_VECTOR_CANDIDATES, vector=vec, visible=visible, layers=None, k=k, fetch_k=n
                )
            ms = (time.perf_counter() - t) * 1000
            got[name] = [r["id"] for r in rows]
            if q >= 3:  # warm-up
                lat[name].append(ms)
        if q >= 3:
            truth = set(got["exact"])
            for name in rec:
                rec[name].append(len(truth & set(got[name])) / max(1, len(truth)))
    print(f"{queries} queries, k={k}, {len(leaves)} leaves, visible keys per leaf {len(leaves[0].ancestor_keys())}")
    for name, xs in lat.items():
        r = (
            f", recall@{k} vs exact mean {statistics.mean(rec[name]):.3f} min {min(rec[name]):.2f}"
            if name in rec
            else ""
        )
        print(f"{name:16s} p50 {pct(xs, 50):8.1f} ms  p95 {pct(xs, 95):8.1f} ms{r}")
    await conn.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("size", type=int)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--limits", default="100,200,400")
    a = ap.parse_args()
    asyncio.run(main(a.data_dir, a.size, a.queries, a.k, [int(x) for x in a.limits.split(",")]))
