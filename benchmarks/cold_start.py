"""The first recalls and the first agent turns after a fresh server start (issue 11): how long
the user waits while the server plans the recall statement (once per mix of parameter types and
size buckets, 4–25 s each after a start: benchmarks/notes/cold-start-5.md).

Per start: the data folder's server is stopped and started again (a cold plan cache), then a
worker process runs in each tree (``PYTHONPATH=<tree>/src``, the trees in turn, each after its
own restart): ``Memory.connect`` (schema migration and, where the tree has it, the background
planning), ``--idle`` seconds of nothing (a user typing), then

* ``recall`` mode (a ``recall_ab`` store such as ``/work/tail-data/r10k``): ``--n`` recalls of
  varied shape — each leaf twice (the population counted in the statement, then cached), a
  name, three names, one layer, a long query — and the wall time of each;
* ``agent`` mode (an ``agent_ab`` store such as ``/work/tail-data/agent10k``): ``--n`` agent
  turns with the scripted model, the overhead before the model of each (``agent_ab``'s timer).

    python -m benchmarks.cold_start recall --data-dir /work/cold-data/r10k --before /work/main --starts 3
    python -m benchmarks.cold_start agent --data-dir /work/cold-data/agent10k --before /work/main --starts 2 --idle 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
PASSWORD_ENV = "HIPPOGRAPH_COLD_PASSWORD"


def _queries(rng: random.Random, vocab: list[str], n: int) -> list[tuple[str, bool]]:
    """(query, semantic layer only) for recall ``i``: the shapes a user's first recalls take."""
    shapes = [
        lambda: (f"what about {rng.choice(vocab)} and {rng.choice(vocab)}", False),
        lambda: (f"What did Ann say about {rng.choice(vocab)}?", False),
        lambda: (f"Ann, Bob and Cleo on {rng.choice(vocab)}", False),
        lambda: (f"{rng.choice(vocab)} {rng.choice(vocab)}", True),
        lambda: (" ".join(rng.choice(vocab) for _ in range(40)), False),
        lambda: (f"tell me about {rng.choice(vocab)}", False),
    ]
    return [shapes[i % len(shapes)]() for i in range(n)]


async def _connect(uri: str, password: str, embedder: Any) -> tuple[Any, float]:
    from hippograph.memory import Memory

    t0 = time.perf_counter()
    memory = await Memory.connect(uri, password=password, embedder=embedder)
    return memory, (time.perf_counter() - t0) * 1000


async def recall_worker(uri: str, password: str, state_file: Path, n: int, idle: float) -> dict[str, Any]:
    from benchmarks.recall_bench import tree, vocabulary
    from benchmarks.recall_profile import HOPS2, NOW
    from hippograph.embeddings import HashingEmbeddings
    from hippograph.models import Layer

    state = json.loads(state_file.read_text())
    leaves = tree(state["root"])
    memory, connect_ms = await _connect(uri, password, HashingEmbeddings())
    await asyncio.sleep(idle)
    rng = random.Random(5)
    walls = []
    try:
        for i, (query, semantic) in enumerate(_queries(rng, vocabulary(10000), n)):
            t0 = time.perf_counter()
            layers = [Layer.SEMANTIC] if semantic else None
            await memory.engine.recall(leaves[i // 2], query, layers=layers, config=HOPS2, now=NOW)
            walls.append((time.perf_counter() - t0) * 1000)
    finally:
        await memory.close()
    return {"connect_ms": connect_ms, "walls_ms": walls}


async def agent_worker(uri: str, password: str, state_file: Path, n: int, idle: float) -> dict[str, Any]:
    from benchmarks.agent_ab import FirstCallTimer, StatementCounter
    from benchmarks.agent_bench import QUESTIONS, REPLY, fill
    from hippograph.agent import Agent, AgentConfig
    from hippograph.embeddings import default_embedder
    from hippograph.llm import ScriptedModel
    from hippograph.scope import Scope

    root = str(json.loads(state_file.read_text())["root"])
    embedder = default_embedder()
    await embedder.embed("warm up the model")  # the model's load is not the server's
    counter = StatementCounter()
    counter.install()
    memory, connect_ms = await _connect(uri, password, embedder)
    await asyncio.sleep(idle)
    timer = FirstCallTimer(ScriptedModel([REPLY], cycle=True), counter)
    agent = Agent(memory, timer, AgentConfig())
    chat = Scope.root("org", root).child("user", "u1").child("chat", f"cold-{uuid.uuid4().hex[:8]}")
    rng = random.Random(7)
    walls = []
    try:
        for _ in range(n):
            timer.first = None
            t0 = time.perf_counter()
            await agent.run(chat, fill(rng.choice(QUESTIONS), rng))
            assert timer.first is not None
            walls.append((timer.first - t0) * 1000)
            await agent.drain()
    finally:
        await agent.drain()
        await memory.forget(chat)
        await memory.close()
    return {"connect_ms": connect_ms, "walls_ms": walls}


def restart(data_dir: Path, heap: str, pagecache_mb: int) -> tuple[str, str, float]:
    from hippograph.store import LocalNeo4j

    server = LocalNeo4j(data_dir, heap=heap, pagecache_mb=pagecache_mb)
    server.stop()
    t0 = time.perf_counter()
    status = server.start(timeout=900)
    assert status.uri
    return str(status.uri), server.password(), time.perf_counter() - t0


def run_worker(tree_dir: Path, args: argparse.Namespace, uri: str, password: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}", PASSWORD_ENV: password}
    cmd = [sys.executable, "-m", "benchmarks.cold_start", args.mode, "--worker", uri, "--data-dir", str(args.data_dir)]
    cmd += ["--n", str(args.n), "--idle", str(args.idle)]
    done = subprocess.run(cmd, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"worker in {tree_dir} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main(args: argparse.Namespace) -> None:
    state = args.data_dir / ("profile_state.json" if args.mode == "recall" else "agent_ab_state.json")
    if args.worker:
        work = recall_worker if args.mode == "recall" else agent_worker
        out = asyncio.run(work(args.worker, os.environ[PASSWORD_ENV], state, args.n, args.idle))
        print(json.dumps(out))
        return
    heap, pagecache = ("1g", 512) if args.mode == "recall" else ("2g", 1024)
    trees = {"before": args.before, "after": args.after} if args.before else {"after": args.after}
    unit = "recall" if args.mode == "recall" else "turn (before the model)"
    print(f"{args.mode}: {args.n} per start, idle {args.idle:g} s after connect, {args.starts} starts")
    for start in range(args.starts):
        order = list(trees.items()) if start % 2 == 0 else list(reversed(trees.items()))
        for name, tree_dir in order:
            uri, password, up_s = restart(args.data_dir, heap, pagecache)
            before = load()
            out = run_worker(tree_dir, args, uri, password)
            walls = out["walls_ms"]
            slow = [(i, round(w)) for i, w in enumerate(walls) if w > 1000]
            print(
                f"start {start + 1} {name:6}: server up {up_s:.1f} s, connect {out['connect_ms']:.0f} ms; "
                f"first {unit} {walls[0]:.0f} ms, all {len(walls)} {sum(walls) / 1000:.1f} s, "
                f"over 1 s: {slow}; load {before} → {load()}",
                flush=True,
            )
            print("   ", json.dumps({"tree": name, "start": start + 1, **out}), flush=True)
    if args.stop:
        from hippograph.store import LocalNeo4j

        LocalNeo4j(args.data_dir).stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("mode", choices=("recall", "agent"))
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=HERE)
    ap.add_argument("--starts", type=int, default=2)
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--idle", type=float, default=0.0)
    ap.add_argument("--stop", action="store_true", help="stop the server at the end")
    ap.add_argument("--worker", metavar="URI")
    main(ap.parse_args())
