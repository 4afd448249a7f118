"""Write throughput of two source trees side by side, in one run.

One local Neo4j (with ``--before-data-dir``, two: the before tree writes into a server its own
package starts — its launcher, its Neo4j, its JVM flags — both up through the rounds); rounds
alternate between the trees, each round one worker process per tree (``PYTHONPATH=<tree>/src``)
that first applies its tree's schema (untimed), then runs the same
workload into fresh scopes:

- ``store``: ``GraphStore.add_nodes`` of ``--count`` memories with random unit 384-d vectors and
  their session / keyword / name cues (``cues_of`` inside the timing, as ingest does it), in
  batches of ``--batch`` over 100 conversation scopes, ``--writers`` at a time (as
  ``store_bench --cues``).
- ``ingest``: ``Memory.ingest`` of ``--turns`` LoCoMo turns (real text: speaker, session, keyword
  and name cues, ``NEXT`` chains), one conversation per scope, with hashing embeddings; the
  embedder's own time is measured and taken out (``excl. embedding``).
- ``minilm``: the same ingest of ``--minilm-turns`` turns with the tree's default MiniLM
  embedder (ONNX Runtime where the tree has it and ``onnxruntime`` is installed, else torch),
  embedding included.

    python -m benchmarks.writes_ab --before ../before-tree --after . --rounds 4 --data locomo-dev.json

``ingest`` and ``minilm`` read LoCoMo turns: ``--data`` or ``HIPPOGRAPH_LOCOMO_DATA`` names the file.

Prints each tree's median rate per workload, every round's rate, and after ÷ before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent.parent
PASSWORD_ENV = "HIPPOGRAPH_AB_PASSWORD"
WORKLOADS = ("store", "ingest", "minilm")
TOPICS = [f"topic{i} Ann{i % 7}" for i in range(500)]  # keyword and name cues shared by a few memories


class TimedEmbedder:
    """Wraps an embedder and adds up the seconds its calls take (to take them out of a rate)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.dimensions = getattr(inner, "dimensions", 384)

    async def embed(self, text: str) -> list[float]:
        return (await self.embed_batch([text]))[0]

    async def embed_batch(self, texts: list[str]) -> list[list[float]]:
        t = time.perf_counter()
        try:
            return list(await self.inner.embed_batch(texts))
        finally:
            self.seconds += time.perf_counter() - t


def minilm() -> Any:
    import hippograph.embeddings as e

    return e.default_embedder() if hasattr(e, "default_embedder") else e.SentenceTransformerEmbeddings()


async def store_workload(store: Any, count: int, batch: int, writers: int, seed: int) -> dict[str, Any]:
    import numpy as np

    from benchmarks.store_bench import memory_batches
    from hippograph.cues import cues_of
    from hippograph.models import MemoryNode
    from hippograph.scope import Scope

    rng = np.random.default_rng(seed)
    org = Scope.root("org", f"w{uuid.uuid4().hex[:8]}")
    scopes = [org.child("user", f"u{i}").child("conversation", f"c{j}") for i in range(10) for j in range(10)]
    for s in scopes:
        await store.ensure_scope(s)
    batches = memory_batches(rng, scopes, count, batch, TOPICS)
    sem = asyncio.Semaphore(writers)

    async def write(scope: Scope, nodes: list[MemoryNode]) -> None:
        async with sem:
            await store.add_nodes(scope, nodes, cues={n.id: cues_of(n) for n in nodes})

    t0 = time.perf_counter()
    await asyncio.gather(*(write(s, b) for s, b in batches))
    return {"count": count, "seconds": time.perf_counter() - t0, "embed_seconds": 0.0}


def locomo_turns(path: Path, count: int) -> list[list[dict[str, Any]]]:
    """``count`` LoCoMo turns as ingest dicts, one list per conversation (cut at ``count``)."""
    from benchmarks.locomo.dataset import load

    out: list[list[dict[str, Any]]] = []
    left = count
    while left > 0:
        for conv in load(path):
            turns = [
                {
                    "turn_id": t.dia_id,
                    "session_id": t.session_id,
                    "speaker": t.speaker,
                    "text": t.text,
                    "caption": t.caption,
                    "occurred_at": t.date.timestamp(),
                }
                for t in conv.turns[:left]
            ]
            out.append(turns)
            left -= len(turns)
            if left <= 0:
                break
    return out


async def ingest_workload(store: Any, embedder: Any, conversations: list[list[dict[str, Any]]]) -> dict[str, Any]:
    from hippograph.memory import Memory
    from hippograph.scope import Scope

    timed = TimedEmbedder(embedder)
    memory = Memory(store, timed)
    org = Scope.root("org", f"i{uuid.uuid4().hex[:8]}")
    scopes = [org.child("user", f"u{i}") for i in range(len(conversations))]
    t0 = time.perf_counter()
    count = 0
    for scope, turns in zip(scopes, conversations, strict=True):
        count += len(await memory.ingest(scope, turns))
    return {"count": count, "seconds": time.perf_counter() - t0, "embed_seconds": timed.seconds}


async def worker(uri: str, password: str, workload: str, args: argparse.Namespace) -> dict[str, Any]:
    import hippograph
    from hippograph.embeddings import HashingEmbeddings
    from hippograph.store import GraphStore, Neo4jConnection, migrate

    conn = await Neo4jConnection.connect(uri, password=password)
    try:
        await migrate(conn)
        store = GraphStore(conn)
        if workload == "store":
            out = await store_workload(store, args.count, args.batch, args.writers, args.round)
        else:
            embedder: Any = HashingEmbeddings() if workload == "ingest" else minilm()
            turns = args.turns if workload == "ingest" else args.minilm_turns
            conversations = locomo_turns(args.data, turns)
            if workload == "minilm":
                await embedder.embed_batch(["warm up the model"])  # its load is not a write
            out = await ingest_workload(store, embedder, conversations)
            out["embedder"] = type(embedder).__name__
    finally:
        await conn.close()
    return {**out, "tree": hippograph.__file__}


def run_worker(tree_dir: Path, uri: str, password: str, workload: str, argv: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}", PASSWORD_ENV: password}
    args = [sys.executable, "-m", "benchmarks.writes_ab", "--worker", uri, workload, *argv]
    done = subprocess.run(args, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"worker in {tree_dir} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def rate(out: dict[str, Any], workload: str) -> float:
    """Memories (turns) per second; embedding taken out for ``store`` and ``ingest``."""
    seconds = out["seconds"] - (out["embed_seconds"] if workload != "minilm" else 0.0)
    return float(out["count"]) / seconds


def own_server(tree_dir: Path, data_dir: Path, a: argparse.Namespace, *, stop: bool = False) -> tuple[str, str]:
    """Start (or ``stop``) the server of ``data_dir`` with ``tree_dir``'s own package."""
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}"}
    args = [sys.executable, "-m", "benchmarks.writes_ab", "--stop-server" if stop else "--serve"]
    args += ["--data-dir", str(data_dir), "--heap", a.heap, "--pagecache-mb", str(a.pagecache_mb)]
    done = subprocess.run(args, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the server of {data_dir} from {tree_dir} failed:\n{done.stderr[-3000:]}")
    return ("", "") if stop else tuple(json.loads(done.stdout.strip().splitlines()[-1]))  # type: ignore[return-value]


def serve(data_dir: Path, a: argparse.Namespace, *, stop: bool = False) -> tuple[str, str]:
    """(internal) The kept server of ``data_dir``, started by the package on ``sys.path``."""
    try:
        from hippograph.dbms import LocalNeo4j
    except ImportError:  # a tree from before the dbms package serves its own server
        from hippograph.store import LocalNeo4j  # type: ignore[attr-defined,no-redef]

    server = LocalNeo4j(data_dir, heap=a.heap, pagecache_mb=a.pagecache_mb)
    if stop:
        server.stop()
        return "", ""
    status = server.start(timeout=400)
    return str(status.uri), server.password()


def main(a: argparse.Namespace) -> None:
    from hippograph.dbms import LocalNeo4j

    console = Console()
    workloads = a.workloads
    server = LocalNeo4j(
        a.data_dir or tempfile.mkdtemp(prefix="hippograph-writes-ab-"),
        heap=a.heap,
        pagecache_mb=a.pagecache_mb,
        stop_with_parent=True,
    )
    status = server.start(timeout=400)
    servers = {"after": (str(status.uri), server.password())}
    servers["before"] = servers["after"]
    rates: dict[tuple[str, str], list[float]] = {}
    try:
        if a.before_data_dir:
            servers["before"] = own_server(a.before, a.before_data_dir, a)
        warm = ["--count", "1000", "--batch", str(a.batch), "--turns", "200", "--data", str(a.data)]
        for workload in ("store", "ingest"):  # a cold server's JIT and caches are nobody's figure
            trees = [("after", a.after)] + ([("before", a.before)] if a.before_data_dir else [])
            for name, tree_dir in trees:
                run_worker(tree_dir, *servers[name], workload, warm)
        for r in range(a.rounds):
            order = [("before", a.before), ("after", a.after)]
            for name, tree_dir in order if r % 2 == 0 else order[::-1]:
                for workload in workloads:
                    argv = ["--round", str(r), "--count", str(a.count), "--batch", str(a.batch)]
                    argv += ["--writers", str(a.writers), "--turns", str(a.turns)]
                    argv += ["--minilm-turns", str(a.minilm_turns), "--data", str(a.data)]
                    out = run_worker(tree_dir, *servers[name], workload, argv)
                    rates.setdefault((name, workload), []).append(rate(out, workload))
                    extra = f" ({out['embedder']})" if workload == "minilm" else ""
                    console.print(
                        f"round {r + 1}/{a.rounds} {name} {workload}: {rates[name, workload][-1]:,.0f}/s "
                        f"({out['count']} in {out['seconds']:.1f} s, embedding {out['embed_seconds']:.1f} s){extra}"
                    )
    finally:
        server.stop()
        if a.before_data_dir:
            own_server(a.before, a.before_data_dir, a, stop=True)
    where = "each tree its own server" if a.before_data_dir else "one server"
    table = Table(title=f"writes, {a.rounds} alternating rounds, {where} (medians; every round in brackets)")
    for col in ("workload", "before /s", "after /s", "after ÷ before"):
        table.add_column(col)
    labels = {
        "store": f"store writes with cues, excl. embedding ({a.count:,}, batches of {a.batch}, {a.writers} writers)",
        "ingest": f"conversation ingest, excl. embedding ({a.turns:,} LoCoMo turns)",
        "minilm": f"conversation ingest incl. MiniLM ({a.minilm_turns:,} turns)",
    }
    for workload in workloads:
        b, f = rates["before", workload], rates["after", workload]
        table.add_row(
            labels[workload],
            f"{statistics.median(b):,.0f} [{', '.join(f'{x:,.0f}' for x in b)}]",
            f"{statistics.median(f):,.0f} [{', '.join(f'{x:,.0f}' for x in f)}]",
            f"{statistics.median(f) / statistics.median(b):.2f}×",
        )
    console.print(table)


if __name__ == "__main__":
    from benchmarks.locomo.dataset import DATA_ENV, data_path

    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", nargs=2, metavar=("URI", "WORKLOAD"))
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=HERE)
    ap.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--count", type=int, default=5000, help="store: memories per round")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--writers", type=int, default=2)
    ap.add_argument("--turns", type=int, default=2000, help="ingest: LoCoMo turns per round")
    ap.add_argument("--minilm-turns", type=int, default=300)
    ap.add_argument("--data", type=Path, default=None, help=f"the LoCoMo dev file (default: ${DATA_ENV})")
    ap.add_argument("--round", type=int, default=0)
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--pagecache-mb", type=int, default=1024)
    ap.add_argument("--data-dir", type=Path, default=None, help="the server's folder (default: a new temporary one)")
    ap.add_argument("--before-data-dir", type=Path, default=None, help="the before tree's own server")
    ap.add_argument("--serve", action="store_true", help="(internal) start --data-dir's server")
    ap.add_argument("--stop-server", action="store_true", help="(internal) stop the server of --data-dir")
    a = ap.parse_args()
    if a.serve or a.stop_server:
        print(json.dumps(serve(a.data_dir, a, stop=a.stop_server)))
    elif a.worker:
        uri, workload = a.worker
        print(json.dumps(asyncio.run(worker(uri, os.environ[PASSWORD_ENV], workload, a))))
    else:
        a.before, a.after = a.before.resolve(), a.after.resolve()
        a.data = data_path(a.data)  # the warm-up ingests LoCoMo turns whatever the workloads
        main(a)
