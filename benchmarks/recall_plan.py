"""Where the one recall statement spends its work: PROFILE, db hits per operator (issue: speed).

Opens the kept, populated server of ``--data-dir`` (as ``recall_ab`` / ``recall_profile``
leave it), runs ``--queries`` recalls from the leaves (hops 2, session and cue spreading
on, hashing embeddings) capturing the statement's parameters, then runs the statement under
``PROFILE`` with each and sums db hits and rows per operator over the queries. Each operator
is named by its plan position (the statement's text is static, so positions match between
queries), its type and the head of its details; the report groups them by the statement's
stages as the plan's details name them.

    python -m benchmarks.recall_plan --size 100000 --data-dir /work/data-scale/100k --queries 20
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import random
import statistics
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmarks.recall_bench import tree, vocabulary
from benchmarks.recall_profile import HOPS2, NOW, open_store
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store import Neo4jConnection


def walk(plan: dict[str, Any], path: str = "0") -> list[tuple[str, dict[str, Any]]]:
    """Every operator of a profiled plan with its position (depth-first)."""
    out = [(path, plan)]
    for i, child in enumerate(plan.get("children", [])):
        out += walk(child, f"{path}.{i}")
    return out


async def main(size: int, data_dir: Path, queries: int, top: int, rounds: int) -> None:
    console = Console()
    server, store, _leaves, state = await open_store(data_dir, size, console)
    leaves = tree(state["root"])
    engine = RecallEngine(store, HashingEmbeddings(), HOPS2)
    captured: list[dict[str, Any]] = []
    original = store.conn.read_plain_as

    async def capture(query: Any, row: Any, **params: Any) -> Any:
        if query is RetrievalQuery.SEARCH_RECALL:
            captured.append(params)
        return await original(query, row, **params)

    store.conn.read_plain_as = capture  # type: ignore[method-assign]
    vocab = vocabulary(size)
    rng = random.Random(7)
    for q in range(queries):
        text = f"what about {rng.choice(vocab)} and {rng.choice(vocab)}"
        await engine.recall(leaves[q % len(leaves)], text, config=HOPS2, now=NOW)
    store.conn.read_plain_as = original  # type: ignore[method-assign]

    hits: dict[str, int] = collections.Counter()
    rows: dict[str, int] = collections.Counter()
    names: dict[str, str] = {}
    totals: list[int] = []
    profiled = "PROFILE " + RetrievalQuery.SEARCH_RECALL.text  # the catalogued text, profiled
    # a connection that waits out the planning of the profiled text (tens of seconds when loaded)
    slow = await Neo4jConnection.connect(str(server.status().uri), password=server.password(), timeout=600)
    async with slow.driver.session(database=slow.database) as session:
        for params in captured:
            result = await session.run(profiled, params)  # type: ignore[arg-type]
            summary = await result.consume()
            assert summary.profile is not None
            total = 0
            for pos, op in walk(summary.profile):
                args = op.get("args", {})
                details = " ".join(str(args.get("Details", "")).split())[:110]
                names[pos] = f"{op.get('operatorType', '?')}: {details}"
                hits[pos] += int(op.get("dbHits", 0))
                rows[pos] += int(op.get("rows", 0))
                total += int(op.get("dbHits", 0))
            totals.append(total)
    n = len(captured)
    order = {pos: i for i, pos in enumerate(names)}
    print(f"PROFILE of search_recall at {size:,}: mean db hits / rows per recall over {n} recalls")
    print(f"{'#':>4} {'db hits':>10} {'rows':>8}  operator: details")
    for pos, h in sorted(hits.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{order[pos]:>4} {h / n:>10,.0f} {rows[pos] / n:>8,.0f}  {names[pos]}")
    print(f"{'':>4} {sum(totals) / n:>10,.0f} {'':>8}  total (min {min(totals):,}, max {max(totals):,})")
    await timings(slow, captured, rounds)
    await slow.close()
    await store.conn.close()
    del server


ABLATIONS: dict[str, dict[str, Any]] = {
    "full statement": {},
    "no cue spreading": {"cue_decay": 0.0},
    "no session / cue spreading": {"cue_decay": 0.0, "session_decay": 0.0},
    "no spreading at all": {"max_nodes": 0},
    "max_hops 1": {"max_hops": 1},
    "no fulltext channel": {"lucene": None},
    "no vector channel": {"vector": None},
    "population given (cached)": {},
}


async def timings(conn: Neo4jConnection, captured: list[dict[str, Any]], rounds: int) -> None:
    """Server time (available + consumed, from the summary) and wall time of the statement
    with each ablation's parameters, interleaved query by query."""
    text = RetrievalQuery.SEARCH_RECALL.text
    populations: dict[str, int] = {}
    server: dict[str, list[float]] = collections.defaultdict(list)
    wall: dict[str, list[float]] = collections.defaultdict(list)
    async with conn.driver.session(database=conn.database) as session:
        for _ in range(rounds):
            for params in captured:
                for name, change in ABLATIONS.items():
                    p = {**params, **change}
                    if name.startswith("population"):
                        p["population"] = populations.get(str(params["visible"]), -1)
                    t = time.perf_counter()
                    result = await session.run(text, p)  # type: ignore[arg-type]
                    records = [dict(r) async for r in result]
                    summary = await result.consume()
                    wall[name].append((time.perf_counter() - t) * 1000)
                    server[name].append(float(summary.result_available_after + summary.result_consumed_after))
                    if not change and not name.startswith("population"):
                        populations[str(params["visible"])] = records[0]["population"]
    print(f"statement timings, {rounds} × {len(captured)} runs each, ablations interleaved (ms)")
    print(f"{'variant':<30} {'server p50':>10} {'server p95':>10} {'wall p50':>9} {'wall p95':>9}")
    for name in ABLATIONS:
        (s50, s95), (w50, w95) = (pcts(server[name]), pcts(wall[name]))
        print(f"{name:<30} {s50:>10.1f} {s95:>10.1f} {w50:>9.1f} {w95:>9.1f}")


def pcts(xs: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(xs, n=100)
    return q[49], q[94]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds over the captured parameters")
    a = ap.parse_args()
    asyncio.run(main(a.size, a.data_dir, a.queries, a.top, a.rounds))
