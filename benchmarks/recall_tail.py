"""Which recalls are slow, and why: a per-recall profile of the tail (issue 11).

Opens the kept, populated server of ``--data-dir`` (as ``recall_ab`` leaves it) and runs the
queries ``recall_ab`` runs (its rounds' leaves and texts, hops 2, session and cue spreading on,
hashing embeddings, ``track_access`` off). Per recall it records

* the wall time of ``engine.recall`` and the engine's own split (statement + decoding,
  activation maths, scoring);
* inside the statement's read: the server's time (``result_available_after`` +
  ``result_consumed_after``), the driver's (session, BEGIN, the pull and PackStream decoding:
  the rest of the round trip) and the row's validation;
* what the statement returned: hits per channel, edge arrivals, session and cue arrivals,
  memories read whole;
* Python's garbage collections during the recall (``gc.callbacks``) and the server JVM's GC
  and safepoint pauses during it (unified logging switched on at run time with ``jcmd
  VM.log``, ``timemillis`` decorations, read back after the run);

then, per captured statement, the db hits of one ``PROFILE`` and the server time of
``--repeats`` plain re-runs — a slow recall whose re-runs are fast was slowed by something
around it (a pause, the scheduler), not by its shape.

    python -m benchmarks.recall_tail --data-dir /work/tail-data/r10k --rounds 6 --per-round 25 [--freeze]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from benchmarks.recall_bench import tree, vocabulary
from benchmarks.recall_plan import walk
from benchmarks.recall_profile import HOPS2, open_store
from hippograph.dbms.java_runtime import find_java
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store import Neo4jConnection
from hippograph.store.queries import MemoryQuery

GC_PAUSE = re.compile(r"^\[(\d+)ms\].*? (Pause \w+(?: \(\w+\))?).*? (\d+\.\d+)ms$")
SAFEPOINT = re.compile(r'^\[(\d+)ms\].*? Safepoint "(\w+)".*?Total: (\d+) ns')


def jcmd(pid: int, *args: str) -> str:
    tool = Path(find_java()).resolve().parent / "jcmd"
    exe = str(tool) if tool.exists() else shutil.which("jcmd") or "jcmd"
    done = subprocess.run([exe, str(pid), *args], capture_output=True, text=True, timeout=60, check=False)
    return done.stdout + done.stderr


def jvm_pauses(log: Path) -> list[tuple[float, float, str]]:
    """(end ms since the epoch, pause ms, kind) of every GC pause and safepoint in ``log``."""
    out = []
    for line in log.read_text(errors="replace").splitlines() if log.exists() else []:
        if m := GC_PAUSE.search(line):
            out.append((float(m.group(1)), float(m.group(3)), f"GC {m.group(2)}"))
        elif (m := SAFEPOINT.search(line)) and int(m.group(3)) >= 1_000_000 and not m.group(2).startswith("G1"):
            # a safepoint of 1 ms or more that is not a GC (whose pause its own line gives)
            out.append((float(m.group(1)), int(m.group(3)) / 1e6, f"safepoint {m.group(2)}"))
    return out


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1] if len(xs) > 1 else (xs[0] if xs else 0.0)


def rank_corr(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (no tie correction: a profile, not a test)."""

    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        for i, j in enumerate(order):
            r[j] = float(i)
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else 0.0


async def main(
    data_dir: Path, size: int, rounds: int, per: int, repeats: int, out: Path | None, freeze: bool
) -> None:
    from rich.console import Console

    console = Console(width=200)
    server, store, _leaves, state = await open_store(data_dir, size, console)
    pid = server.status().pid
    assert pid
    leaves = tree(state["root"])
    engine = RecallEngine(store, HashingEmbeddings(), HOPS2)
    conn = store.conn
    original = conn.read_plain_as
    current: dict[str, Any] = {}

    async def traced(query: Any, row: Any, **params: Any) -> Any:
        if query is not RetrievalQuery.SEARCH_RECALL:
            return await original(query, row, **params)
        t0 = time.perf_counter()
        from hippograph.store.connection import unprinted

        async with conn.driver.session(database=conn.database) as session:

            async def work(tx: Any) -> Any:
                result = await tx.run(query.text, unprinted(params))
                records = [dict(r) async for r in result]
                return records, await result.consume()

            records, summary = await session.execute_read(work)
        t1 = time.perf_counter()
        parsed = [row.model_validate(r) for r in records]
        t2 = time.perf_counter()
        server_ms = float((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        current.update(params={**params, "population": params["population"]}, client_ms=(t1 - t0) * 1000,
                       server_ms=server_ms, validate_ms=(t2 - t1) * 1000, row=records[0])  # fmt: skip
        return parsed

    conn.read_plain_as = traced  # type: ignore[method-assign]
    py_gc: list[float] = []
    gc_start: list[float] = []

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_start.append(time.perf_counter())
        elif gc_start:
            py_gc.append((time.perf_counter() - gc_start.pop()) * 1000)

    vocab = vocabulary(size)
    work_list = []
    for r in range(rounds):  # recall_ab's queries, round by round
        rng = random.Random(1000 + r)
        for q in range(per):
            leaf = leaves[(r * per + q) % len(leaves)]
            work_list.append((leaf, f"what about {rng.choice(vocab)} and {rng.choice(vocab)}"))
    for leaf, text in work_list[:3]:  # warm: plans, the driver's pool
        await engine.recall(leaf, text, config=HOPS2, now=state.get("now", 1.8e9))
    if freeze:  # as the API and MCP servers do once start-up is done
        from hippograph.app.runtime import freeze_startup_objects

        freeze_startup_objects()
    gc_log = data_dir / f"tail-gc-{int(time.time())}.log"
    console.print(jcmd(pid, "VM.log", f"output=file={gc_log}", "what=gc=info,safepoint=info", "decorators=timemillis"))
    now = time.time()
    all_keys = sorted({k for leaf in leaves for k in leaf.ancestor_keys()})
    raw: list[float] = []
    recalls: list[dict[str, Any]] = []
    gc.callbacks.append(on_gc)
    try:
        for leaf, text in work_list:
            current.clear()
            t = time.perf_counter()
            await conn.read(  # recall_ab's raw index query before each recall, as its rounds do
                MemoryQuery.SEARCH_VECTOR_INDEX, vector=await engine.embedder.embed(text), visible=all_keys,
                layers=None, k=50, fetch_k=50,
            )  # fmt: skip
            raw.append((time.perf_counter() - t) * 1000)
            py_gc.clear()
            start = time.time() * 1000
            t = time.perf_counter()
            result = await engine.recall(leaf, text, config=HOPS2, now=now)
            wall = (time.perf_counter() - t) * 1000
            row = current["row"]
            parts = [a["part"] for a in row["associations"]]
            recalls.append({
                "leaf": leaf.key, "text": text, "start": start, "end": time.time() * 1000, "wall": wall,
                "client_ms": current["client_ms"], "server_ms": current["server_ms"],
                "validate_ms": current["validate_ms"],
                "py_gc_ms": sum(py_gc), "py_gcs": len(py_gc),
                "vector": len(row["vector_hits"]), "fulltext": len(row["fulltext_hits"]), "edges": len(row["edges"]),
                "session": parts.count("session"), "cue": parts.count("cue"), "nodes": len(row["nodes"]),
                "params": current["params"], "ids": [[i.node.id, i.score] for i in result.items],
            })  # fmt: skip
    finally:
        gc.callbacks.remove(on_gc)
        conn.read_plain_as = original  # type: ignore[method-assign]
    time.sleep(1.0)
    console.print(jcmd(pid, "VM.log", "disable"))
    pauses = jvm_pauses(gc_log)
    for rec in recalls:
        inside = [(ms, kind) for end, ms, kind in pauses if rec["start"] <= end <= rec["end"] + 1]
        rec["jvm_pause_ms"] = sum(ms for ms, _ in inside)
        rec["jvm_pauses"] = [f"{kind} {ms:.1f}" for ms, kind in inside]

    slow = await Neo4jConnection.connect(str(server.status().uri), password=server.password(), timeout=600)
    profiled = "PROFILE " + RetrievalQuery.SEARCH_RECALL.text
    async with slow.driver.session(database=slow.database) as session:
        for rec in recalls:
            result = await session.run(profiled, rec["params"])  # type: ignore[arg-type]
            summary = await result.consume()
            assert summary.profile is not None
            rec["db_hits"] = sum(int(op.get("dbHits", 0)) for _, op in walk(summary.profile))
        for rec in recalls:
            rec["rerun_server_ms"] = []
        for _ in range(repeats):
            for rec in recalls:
                result = await session.run(RetrievalQuery.SEARCH_RECALL.text, rec["params"])
                s = await result.consume()
                rec["rerun_server_ms"].append(float((s.result_available_after or 0) + (s.result_consumed_after or 0)))
    await slow.close()
    await conn.close()
    console.print(f"raw index query (k = 50) before each recall: p50 {pct(raw, 50):.1f}, p95 {pct(raw, 95):.1f} ms")
    report(console, recalls, pauses)
    if out:
        for rec in recalls:
            rec.pop("params")
        out.write_text(json.dumps(recalls))
        console.print(f"per-recall records: {out}")


def report(console: Any, recalls: list[dict[str, Any]], pauses: list[tuple[float, float, str]]) -> None:
    from rich.table import Table

    walls = [r["wall"] for r in recalls]
    p50, p90, p95 = pct(walls, 50), pct(walls, 90), pct(walls, 95)
    cols = {
        "wall ms": lambda r: r["wall"],
        "server ms": lambda r: r["server_ms"],
        "driver ms (round trip − server)": lambda r: r["client_ms"] - r["server_ms"],
        "validate ms": lambda r: r["validate_ms"],
        "Python after the statement ms": lambda r: r["wall"] - r["client_ms"] - r["validate_ms"],
        "Python GC ms": lambda r: r["py_gc_ms"],
        "JVM pauses in the recall ms": lambda r: r["jvm_pause_ms"],
        "re-run server ms (median)": lambda r: statistics.median(r["rerun_server_ms"]),
        "db hits": lambda r: r["db_hits"],
        "edge arrivals": lambda r: r["edges"],
        "session arrivals": lambda r: r["session"],
        "cue arrivals": lambda r: r["cue"],
        "fulltext hits": lambda r: r["fulltext"],
        "memories read whole": lambda r: r["nodes"],
    }
    fast = [r for r in recalls if r["wall"] <= p50]
    tail = [r for r in recalls if r["wall"] >= p90] or [max(recalls, key=lambda r: r["wall"])]
    table = Table(title=f"{len(recalls)} recalls: wall p50 {p50:.1f}, p90 {p90:.1f}, p95 {p95:.1f} ms")
    heads = ("per recall", "p50", "p95", "mean of the fastest half", "mean of the slowest 10 %", "rank corr. with wall")
    for c in heads:
        table.add_column(c)
    for name, f in cols.items():
        xs = [float(f(r)) for r in recalls]
        table.add_row(name, f"{pct(xs, 50):.1f}", f"{pct(xs, 95):.1f}", f"{statistics.fmean(f(r) for r in fast):.1f}",
                      f"{statistics.fmean(f(r) for r in tail):.1f}", f"{rank_corr(walls, xs):+.2f}")  # fmt: skip
    console.print(table)
    slowest = Table(title="the slowest recalls")
    for c in ("wall", "server", "driver", "python", "re-run", "JVM pauses", "py gc", "hits", "sess", "cue", "leaf"):
        slowest.add_column(c)
    for r in sorted(recalls, key=lambda r: -r["wall"])[:12]:
        slowest.add_row(
            f"{r['wall']:.1f}", f"{r['server_ms']:.0f}", f"{r['client_ms'] - r['server_ms']:.1f}",
            f"{r['wall'] - r['client_ms'] - r['validate_ms']:.1f}",
            "/".join(f"{x:.0f}" for x in r["rerun_server_ms"]), ", ".join(r["jvm_pauses"]) or "-",
            f"{r['py_gc_ms']:.1f}", f"{r['db_hits']:,}", str(r["session"]), str(r["cue"]), r["leaf"][-18:],
        )  # fmt: skip
    console.print(slowest)
    kinds: dict[str, list[float]] = {}
    for _, ms, kind in pauses:
        kinds.setdefault(kind, []).append(ms)
    for kind, xs in sorted(kinds.items()):
        console.print(f"JVM {kind}: {len(xs)} during the run, total {sum(xs):.1f} ms, max {max(xs):.1f} ms")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--per-round", type=int, default=25)
    ap.add_argument("--repeats", type=int, default=3, help="plain re-runs of each captured statement")
    ap.add_argument("--out", type=Path, default=None, help="write every recall's record here (JSON)")
    ap.add_argument("--freeze", action="store_true", help="freeze start-up's objects first, as the servers do")
    a = ap.parse_args()
    asyncio.run(main(a.data_dir, a.size, a.rounds, a.per_round, a.repeats, a.out, a.freeze))
