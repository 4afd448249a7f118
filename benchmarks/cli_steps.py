"""Where a CLI recall's wall time goes, step by step, two source trees side by side.

Each run is a new process (``PYTHONPATH=<tree>/src``, bytecode compiled first, as an installed
wheel has it) that does what ``hippograph recall … --json`` does and notes the time since the
process started at each step: the CLI imported, the runtime imported, connected (schema
checked), the embedder loaded (it loads beside the connect), recalled, closed (the recall's
access counts written), and the process's wall time, its end included (as the tree's
``hippograph`` command ends). Runs alternate between the trees; every query is distinct. Uses the
server of ``HIPPOGRAPH_NEO4J_URI`` (and ``HIPPOGRAPH_NEO4J_PASSWORD``) and a scope that has
memories, e.g. the one ``cold_start`` seeds.

    python -m benchmarks.cli_steps --before ../before-tree --after . --scope org:cold-start/user:u1 --runs 6

Prints, per tree, the median of each step over the runs (ms since the process started).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
STEPS = ("cli", "runtime", "connected", "embedder", "recalled", "closed")

PROBE = """
import time
t0 = time.perf_counter()
marks = {}
import hippograph.app.cli
marks["cli"] = time.perf_counter()
import asyncio, json, sys
from hippograph.app.runtime import neo4j_target
from hippograph.app.settings import Settings
from hippograph.memory import Memory
from hippograph.scope import Scope
marks["runtime"] = time.perf_counter()

async def main():
    settings = Settings()
    embedder = settings.make_embedder()
    loading = asyncio.ensure_future(embedder.embed("hippograph"))
    uri, password = neo4j_target(settings, start_local=False)
    memory = await Memory.connect(uri, password=password, embedder=embedder)
    marks["connected"] = time.perf_counter()
    await loading
    marks["embedder"] = time.perf_counter()
    result = await memory.recall(Scope.parse(sys.argv[1]), sys.argv[2], top_k=5)
    result.model_dump_json(indent=2)
    marks["recalled"] = time.perf_counter()
    await memory.close()
    marks["closed"] = time.perf_counter()

asyncio.run(main())
print(json.dumps({k: (v - t0) * 1000 for k, v in marks.items()}))
exit_now = getattr(hippograph.app.cli, "exit_now", None)  # ending as the tree's own command ends
if exit_now is not None:
    exit_now(0)
"""


def one_run(tree: Path, scope: str, query: str) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree / "src"), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, scope, query], env=env, capture_output=True, text=True, check=False
    )
    wall = (time.perf_counter() - t0) * 1000
    if done.returncode:
        raise RuntimeError(f"the probe failed in {tree}:\n{done.stderr[-3000:]}")
    marks: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return {**marks, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the checkout compared with (omit: --after only)")
    parser.add_argument("--after", type=Path, default=HERE)
    parser.add_argument("--scope", required=True, help="a scope key with memories")
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    trees = {"after": args.after.resolve()}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")], check=True)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for i in range(args.runs):
        order = list(trees) if i % 2 == 0 else list(reversed(trees))
        for name in order:
            runs[name].append(one_run(trees[name], args.scope, f"What did they say about the trip, question {i}?"))
            print(f"run {i + 1} {name}: {json.dumps({k: round(v) for k, v in runs[name][-1].items()})}", flush=True)
    print(f"{'ms since start (median)':<26}" + "".join(f"{name:>10}" for name in trees))
    for step in (*STEPS, "wall"):
        cells = [statistics.median(r[step] for r in runs[name]) for name in trees]
        print(f"{step:<26}" + "".join(f"{c:>10.0f}" for c in cells))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
