"""Where one recall's time goes, stage by stage: the recall statement cut after each stage,
timed on the server, interleaved; and the engine's Python work after the statement.

Opens the kept, populated server of ``--data-dir`` (as ``recall_ab`` / ``recall_profile`` leave
it), runs ``--queries`` recalls from leaves ``--first-leaf`` … (hops 2, session and cue
spreading on, hashing embeddings) capturing the statement's parameters and timing the engine
around the statement, then runs the catalogued statement cut after each stage (a ``RETURN`` of
what is in scope there; the cuts are found by the statement's stage comments) ``--rounds`` times
over the captured parameters, stages interleaved. A stage's cost is its cut's server time minus
the previous cut's (medians: differences of noisy figures; compare within one run).

    python -m benchmarks.recall_stages --size 100000 --data-dir D --queries 10 --rounds 6   # D: recall_ab's folder

``--shape realtext`` opens ``recall_ab --shape realtext``'s folder instead and recalls with the
default configuration and the samples' questions (their kept vectors).
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
from rich.table import Table

from benchmarks.realtext import TEAMS, USERS, KnownEmbeddings, open_realtext_store
from benchmarks.recall_bench import tree, vocabulary
from benchmarks.recall_profile import HOPS2, NOW, open_store
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store import Neo4jConnection

# (stage, the first line of the statement that is no longer part of it, what to return there)
CUTS: list[tuple[str, str, str]] = [
    ("population count", "CALL (visible, population) {", "visible, population"),
    ("vector channel", "CALL (visible) {", "visible, population, vector_hits"),
    ("fulltext channel, person cues", "// Evidence:", "visible, population, vector_hits, fulltext_hits, named"),
    ("evidence (z-scores, [0, 1])", "// Spreading over memory edges", "vector_hits, fulltext_hits, named, base"),
    ("edge spreading (hops)", "// a = evidence + edge activation", "vector_hits, fulltext_hits, named, base, arrived4"),
    ("session / cue spreading", "// Total = a + session + cue", "vector_hits, named, a, associations"),
    ("ranking, memories read whole", "", ""),
]


def cut_statements(text: str) -> list[tuple[str, str]]:
    """The statement cut after each stage (the last: the whole statement)."""
    lines = text.splitlines()
    out = []
    at = 0
    for stage, marker, returned in CUTS:
        if not marker:
            out.append((stage, text))
            continue
        # each marker is looked for after the previous cut ("CALL (visible) {": the fulltext channel's)
        hits = [i for i, line in enumerate(lines) if i > at and line.startswith(marker)]
        if not hits:
            raise SystemExit(f"recall_stages: the statement has no line starting {marker!r}: update CUTS")
        at = hits[0]
        out.append((stage, "\n".join(lines[:at]) + f"\nRETURN {returned}\n"))
    return out


async def capture(engine: RecallEngine, conn: Neo4jConnection, work: list[tuple[Any, str]],
                  config: RecallConfig) -> tuple[list[dict[str, Any]], list[float], list[float]]:  # fmt: skip
    """The statement's parameters of the recalls of ``work`` (leaf, query), the recalls' wall
    times and the statement's wall time inside each."""
    captured: list[dict[str, Any]] = []
    inside: list[float] = []
    original = conn.read_plain_as

    async def timed(query: Any, row: Any, **params: Any) -> Any:
        t = time.perf_counter()
        out = await original(query, row, **params)
        if query is RetrievalQuery.SEARCH_RECALL:
            captured.append({**params, "population": -1})
            inside.append((time.perf_counter() - t) * 1000)
        return out

    conn.read_plain_as = timed  # type: ignore[method-assign]
    walls = []
    for leaf, text in work:
        t = time.perf_counter()
        await engine.recall(leaf, text, config=config, now=NOW)
        walls.append((time.perf_counter() - t) * 1000)
    conn.read_plain_as = original  # type: ignore[method-assign]
    return captured, walls, inside


async def main(size: int, data_dir: Path, queries: int, rounds: int, first: int, shape: str) -> None:
    console = Console()
    if shape == "realtext":
        server, store, leaves, state = await open_realtext_store(data_dir, size // (TEAMS * USERS), console)
        embedder: Any = KnownEmbeddings(state["vectors"], state.get("model_id"))
        config = RecallConfig(track_access=False)
        work = [(leaf := leaves[(first + q) % len(leaves)], state["questions"][leaf.key][q // len(leaves)])
                for q in range(queries)]  # fmt: skip
    else:
        server, store, _leaves, state = await open_store(data_dir, size, console)
        leaves, embedder, config = tree(state["root"]), HashingEmbeddings(), HOPS2
        vocab = vocabulary(size)
        rng = random.Random(7)
        work = [(leaves[(first + q) % len(leaves)], f"what about {rng.choice(vocab)} and {rng.choice(vocab)}")
                for q in range(queries)]  # fmt: skip
    engine = RecallEngine(store, embedder, config)
    await capture(engine, store.conn, work[:3], config)  # warm: plans, driver
    captured, walls, inside = await capture(engine, store.conn, work, config)
    cuts = cut_statements(RetrievalQuery.SEARCH_RECALL.text)
    slow = await Neo4jConnection.connect(str(server.status().uri), password=server.password(), timeout=900)
    server_ms: dict[str, list[float]] = collections.defaultdict(list)
    async with slow.driver.session(database=slow.database) as session:
        for _stage, text in cuts:  # plan each cut once
            result = await session.run(text, captured[0])
            await result.consume()
        for r in range(rounds):
            for params in captured:
                for stage, text in cuts if r % 2 == 0 else cuts[::-1]:
                    result = await session.run(text, params)
                    summary = await result.consume()
                    available, consumed = summary.result_available_after or 0, summary.result_consumed_after or 0
                    server_ms[stage].append(float(available + consumed))
    table = Table(title=f"recall at {size:,}: {queries} recalls from leaf {first} on, {rounds} rounds of the cuts")
    for col in ("stage", "cut p50 ms (server)", "stage p50 ms", "share of the statement"):
        table.add_column(col)
    whole = statistics.median(server_ms[cuts[-1][0]])
    previous = 0.0
    for stage, _text in cuts:
        p50 = statistics.median(server_ms[stage])
        table.add_row(stage, f"{p50:.1f}", f"{p50 - previous:.1f}", f"{(p50 - previous) / whole:.0%}")
        previous = p50
    python_ms = [w - i for w, i in zip(walls, inside, strict=True)]
    table.add_row("engine.recall wall (p50)", f"{statistics.median(walls):.1f}", "", "")
    table.add_row("· the statement's round trip inside it", f"{statistics.median(inside):.1f}", "", "")
    table.add_row("· Python before and after the statement", f"{statistics.median(python_ms):.1f}", "", "")
    console.print(table)
    await slow.close()
    await store.conn.close()
    del server


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--shape", choices=("synthetic", "realtext"), default="synthetic")
    ap.add_argument("--first-leaf", type=int, default=0, help="recalls from this leaf on (one leaf per recall)")
    a = ap.parse_args()
    asyncio.run(main(a.size, a.data_dir, a.queries, a.rounds, a.first_leaf, a.shape))
