"""Cold starts, two source trees side by side: what a user scripting the CLI and a service
restarted behind a load balancer see.

Seeds (once, kept in ``--data-dir``) a local Neo4j with ``--memories`` memories of one user
scope (the agent benchmark's data: conversation turns and facts, embedded with MiniLM), then
alternates rounds between the trees; in each round, per tree, with that tree's own code:

1. ``hippograph neo4j stop`` then ``hippograph neo4j start`` (timed), and at once
   ``hippograph recall … --json`` from a new process (the wall time right after the start),
   then ``--cli-runs`` more (steady);
2. the server restarted again, then a new process connects (``Memory.connect``, then
   ``Agent.warm`` when the tree has it) and times its first recall, its first agent turn (the
   pipeline's own time, an instant scripted model) and the p50 of the next ``--per-probe``
   of each: ``after restart``;
3. the same probe again without a restart: ``new client``.

Every query is distinct, so the embedder's cache never answers. The CLI finds the server as a
user's does (``HIPPOGRAPH_DATA_DIR``), and imports each tree's bytecode, compiled first as
installing a wheel compiles it.

    python -m benchmarks.cold_start --before ../before-tree --after . --rounds 3

Prints, per tree, the median over rounds of each figure; ``--out FILE`` writes every round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import bench_dir

HERE = Path(__file__).resolve().parent.parent
SCOPE = "org:cold-start/user:u1"


def tree_env(tree: Path, data_dir: Path) -> dict[str, str]:
    # bytecode as an installed wheel has it (see compile_tree): not compiled again in every process
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("HIPPOGRAPH_NEO4J_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        PYTHONPATH=f"{tree / 'src'}{os.pathsep}{HERE}",
        HIPPOGRAPH_DATA_DIR=str(data_dir),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    return env


def run(tree: Path, data_dir: Path, *args: str) -> tuple[float, str]:
    """Run ``python -m <args>`` with ``tree``'s code; (wall seconds, stdout)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", *args], env=tree_env(tree, data_dir), cwd=HERE, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)} in {tree} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return wall, done.stdout


def compile_tree(tree: Path) -> None:
    """Write the tree's bytecode once, as installing a wheel does: a user's CLI imports cached
    bytecode, and a process that compiles hippograph's sources first pays ~0.3 s more."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")], check=True)


def restart(tree: Path, data_dir: Path) -> float:
    run(tree, data_dir, "hippograph.app.cli", "neo4j", "stop")
    wall, _ = run(tree, data_dir, "hippograph.app.cli", "neo4j", "start")
    return wall


def cli_recall(tree: Path, data_dir: Path, query: str) -> float:
    wall, out = run(tree, data_dir, "hippograph.app.cli", "recall", query, "--scope", SCOPE, "--json")
    if not json.loads(out)["items"]:
        raise RuntimeError(f"the CLI recalled nothing for {query!r}")
    return wall


def probe(tree: Path, data_dir: Path, round_no: int, per: int) -> dict[str, Any]:
    _, out = run(tree, data_dir, "benchmarks.cold_start", "--probe", "--round", str(round_no), "--per-probe", str(per))
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def questions(seed: int, n: int) -> list[str]:
    from benchmarks.agent_bench import QUESTIONS, fill

    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        q = fill(rng.choice(QUESTIONS), rng)
        if q not in out:
            out.append(q)
    return out


async def probe_main(round_no: int, per: int) -> dict[str, Any]:
    """In the tree under test: connect, get ready, then first and steady recalls and turns."""
    from benchmarks.agent_bench import REPLY
    from hippograph.agent import Agent, AgentConfig, ConsolidationSettings
    from hippograph.app.runtime import neo4j_target
    from hippograph.app.settings import Settings
    from hippograph.llm import ScriptedModel
    from hippograph.memory import Memory
    from hippograph.scope import Scope

    settings = Settings()
    uri, password = neo4j_target(settings, start_local=False)
    scope = Scope.parse(SCOPE)
    qs = questions(10_000 + round_no * 7 + int(time.time()) % 1000, 2 * per + 2)
    t0 = time.perf_counter()
    memory = await Memory.connect(uri, password=password)
    t_connect = time.perf_counter()
    agent = Agent(
        memory, ScriptedModel([REPLY], cycle=True), AgentConfig(consolidation=ConsolidationSettings(quick_naps=False))
    )  # naps off
    warm = getattr(agent, "warm", None)  # a tree without it: connect's own background planning only
    if warm is not None:
        await warm()
    t_ready = time.perf_counter()

    async def recall(q: str) -> float:
        t = time.perf_counter()
        result = await memory.recall(scope, q)
        assert result.items, q
        return (time.perf_counter() - t) * 1000

    async def turn(q: str) -> float:
        t = time.perf_counter()
        response = await agent.run(scope, q, session_id="cold-start")
        ms = (time.perf_counter() - t) * 1000 - response.timings.model_ms
        await agent.drain()
        return ms

    first_recall = await recall(qs[0])
    first_turn = await turn(qs[1])
    recalls = [await recall(q) for q in qs[2 : 2 + per]]
    turns = [await turn(q) for q in qs[2 + per :]]
    await memory.close()
    return {
        "connect_ms": (t_connect - t0) * 1000,
        "ready_ms": (t_ready - t_connect) * 1000,
        "first_recall_ms": first_recall,
        "first_turn_ms": first_turn,
        "recall_p50_ms": statistics.median(recalls),
        "recall_p95_ms": p95(recalls),
        "turn_p50_ms": statistics.median(turns),
        "turn_p95_ms": p95(turns),
    }


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


async def seed(data_dir: Path, memories: int) -> None:
    """Seed the kept server once (this tree's code), then stop it."""
    from rich.console import Console

    from benchmarks.agent_bench import seed as seed_scope
    from hippograph.dbms import LocalNeo4j
    from hippograph.embeddings import default_embedder
    from hippograph.memory import Memory
    from hippograph.scope import Scope

    marker = data_dir / f"seeded-{memories}"
    if marker.exists():
        return
    server = LocalNeo4j(data_dir / "neo4j")
    status = server.start(timeout=300)
    memory = await Memory.connect(str(status.uri), password=server.password(), embedder=default_embedder())
    try:
        await seed_scope(memory, Scope.parse(SCOPE), memories, Console())
    finally:
        await memory.close()
    server.stop()
    marker.write_text("")


def one_round(tree: Path, data_dir: Path, round_no: int, cli_runs: int, per: int) -> dict[str, Any]:
    qs = questions(round_no * 101 + len(str(tree)), cli_runs + 1)
    start_s = restart(tree, data_dir)
    cli = [cli_recall(tree, data_dir, q) for q in qs]
    restart(tree, data_dir)
    after_restart = probe(tree, data_dir, round_no, per)
    new_client = probe(tree, data_dir, round_no + 1000, per)
    return {
        "start_s": start_s,
        "cli_after_start_s": cli[0],
        "cli_steady_s": statistics.median(cli[1:]),
        "after_restart": after_restart,
        "new_client": new_client,
    }


def flat(result: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in result.items():
        if isinstance(value, dict):
            out.update({f"{key}.{k}": float(v) for k, v in value.items()})
        else:
            out[key] = float(value)
    return out


def report(results: dict[str, list[dict[str, Any]]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="cold starts: median over rounds")
    table.add_column("figure")
    names = list(results)
    for name in names:
        table.add_column(name, justify="right")
    rows = {name: [flat(r) for r in rounds] for name, rounds in results.items()}
    for key in flat(results[names[0]][0]):
        cells = [statistics.median(r[key] for r in rows[name]) for name in names]
        table.add_row(key, *(f"{c:.2f}" if key.endswith("_s") else f"{c:.1f}" for c in cells))
    Console().print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the checkout compared with (omit: --after only)")
    parser.add_argument("--after", type=Path, default=HERE)
    parser.add_argument("--data-dir", type=Path, default=bench_dir("cold-start"))
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cli-runs", type=int, default=4, help="CLI recalls after the first, per round")
    parser.add_argument("--per-probe", type=int, default=10, help="steady recalls and turns per probe")
    parser.add_argument("--out", type=Path, help="write every round as JSON here")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(asyncio.run(probe_main(args.round, args.per_probe))))
        return
    data_dir = args.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(seed(data_dir, args.memories))
    trees = {"after": args.after.resolve()}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    for tree in trees.values():
        compile_tree(tree)
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    try:
        for round_no in range(args.rounds):
            order = list(trees) if round_no % 2 == 0 else list(reversed(trees))
            for name in order:
                results[name].append(one_round(trees[name], data_dir, round_no, args.cli_runs, args.per_probe))
                print(f"round {round_no + 1} {name}: {json.dumps(flat(results[name][-1]))}", flush=True)
    finally:
        run(args.after.resolve(), data_dir, "hippograph.app.cli", "neo4j", "stop")
    report(results)
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
