"""Where one recall's time goes, stage by stage: the recall statement cut after each stage,
timed on the server, interleaved; and the engine's Python work after the statement.

Opens the kept, populated server of ``--data-dir`` (as ``recall_ab`` / ``recall_profile`` leave
it), runs ``--queries`` recalls from leaves ``--first-leaf`` … (hops 2, session and cue
spreading on, hashing embeddings) capturing the statement's parameters and timing the engine
around the statement, then runs the statement cut after each stage (its fragments up to there and
a ``RETURN`` of what they returned) ``--rounds`` times over the captured parameters, stages
interleaved. A stage's cost is its cut's server time minus the previous cut's (medians:
differences of noisy figures; compare within one run). Then each fragment alone, as the degrade
path runs it, under ``PROFILE``: its server time, db hits and rows.

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
from hippograph.retrieval.statement import FOLDER, ORDER, recall_stages, recall_statement
from hippograph.store import Neo4jConnection
from hippograph.store.fragments import fragments

# (stage, the last fragment it takes in)
CUTS: list[tuple[str, str]] = [
    ("visible keys, population count", "population"),
    ("vector channel (index, exact)", "vector_exact"),
    ("fulltext channel, keys, person cues", "named"),
    ("evidence (z-scores, [0, 1])", "evidence"),
    ("edge spreading (hops)", "spread"),
    ("session / cue spreading", "associations"),
    ("ranking, memories read whole", "result"),
]


def cut_statements(lts: bool = False) -> list[tuple[str, str]]:
    """The statement cut after each stage: its fragments up to the stage's last one, then a
    ``RETURN`` of everything they returned (the last: the whole statement)."""
    parts = fragments(FOLDER, ORDER, lts=lts)
    out = []
    for stage, last in CUTS:
        upto = ORDER[: ORDER.index(last) + 1]
        taken = [f for f in parts if f.name.split("@")[0] in upto]
        if last == ORDER[-1]:
            out.append((stage, recall_statement(lts=lts).text))
            continue
        returned = ", ".join(o.name for f in taken for o in f.outputs)
        prologue = "" if lts else "CYPHER 25\n"
        out.append((stage, prologue + "\n".join(f.body for f in taken) + f"\nRETURN {returned}\n"))
    return out


def _plan_totals(plan: Any) -> tuple[int, int]:
    """(db hits, rows) summed over a profiled plan's operators."""
    hits, rows = int(plan.get("dbHits", 0) or 0), int(plan.get("rows", 0) or 0)
    for child in plan.get("children", []) or []:
        h, r = _plan_totals(child)
        hits, rows = hits + h, rows + r
    return hits, rows


async def profile_fragments(session: Any, params: dict[str, Any], lts: bool) -> list[tuple[str, float, int, int]]:
    """Each fragment run alone (the degrade path's statements) under PROFILE, its inputs those
    the fragments before it returned: (fragment, server ms, db hits, rows)."""
    env: dict[str, Any] = {}
    out = []
    for stage in recall_stages(lts=lts):
        result = await session.run("PROFILE " + stage.query.text, {**params, **stage.params(env)})
        record = await result.single()
        summary = await result.consume()
        env.update(dict(record))
        hits, rows = _plan_totals(summary.profile or {})
        ms = float((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        out.append((stage.fragment.name, ms, hits, rows))
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
        if query.path.startswith(FOLDER + "@"):
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
    lts = not store.conn.capabilities.supports_search_clause
    cuts = cut_statements(lts)
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
    profiled: dict[str, list[tuple[float, int, int]]] = collections.defaultdict(list)
    async with slow.driver.session(database=slow.database) as session:
        for params in captured:
            for name, ms, hits, rows in await profile_fragments(session, params, lts):
                profiled[name].append((ms, hits, rows))
    per = Table(title="each fragment alone under PROFILE (the degrade path's statements): medians over the recalls")
    for col in ("fragment", "server ms", "db hits", "rows"):
        per.add_column(col)
    for name, runs in profiled.items():
        per.add_row(name, *(f"{statistics.median(r[i] for r in runs):,.1f}" for i in range(3)))
    console.print(per)
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
