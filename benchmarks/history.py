"""The regression guard: this checkout's recall, agent and cold-start figures, appended as one
JSON line to ``docs/performance/history.jsonl`` with the commit they were measured on.

A benchmark job, not a timed test: run it on a commit that may change speed and commit the
line with it, so a slowdown shows in review as a line beside the earlier ones. It runs
:mod:`benchmarks.cold_start`'s rounds on this tree alone (its kept server, ``--memories``
memories of the agent benchmark's data) and records, as medians over ``--rounds``:

- ``recall_p50_ms`` / ``recall_p95_ms``, ``turn_p50_ms`` / ``turn_p95_ms``: recall (query
  embedding included) and the agent turn's own time (model excluded), warm;
- ``first_recall_ms`` / ``first_turn_ms``: the first of each after ``Memory.connect`` and
  ``Memory.warm``, right after a server restart, and ``new_client_first_recall_ms`` on a warm
  server;
- ``cli_after_start_s`` / ``cli_steady_s``: ``hippograph recall`` from a new process right
  after ``hippograph neo4j start``, and later.

    python -m benchmarks.history [--rounds 2] [--note "what changed"]

The line also names the machine (cores, load average at the start): compare lines from one
machine; a loaded one gives slower figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from benchmarks import REPO, bench_dir
from benchmarks.cold_start import one_round, seed

HISTORY = REPO / "docs" / "performance" / "history.jsonl"


def commit() -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def figures(rounds: list[dict[str, Any]]) -> dict[str, float]:
    def med(get: Any) -> float:
        return round(statistics.median(get(r) for r in rounds), 1)

    return {
        "recall_p50_ms": med(lambda r: r["after_restart"]["recall_p50_ms"]),
        "recall_p95_ms": med(lambda r: r["after_restart"]["recall_p95_ms"]),
        "turn_p50_ms": med(lambda r: r["after_restart"]["turn_p50_ms"]),
        "turn_p95_ms": med(lambda r: r["after_restart"]["turn_p95_ms"]),
        "first_recall_ms": med(lambda r: r["after_restart"]["first_recall_ms"]),
        "first_turn_ms": med(lambda r: r["after_restart"]["first_turn_ms"]),
        "ready_ms": med(lambda r: r["after_restart"]["ready_ms"]),
        "new_client_first_recall_ms": med(lambda r: r["new_client"]["first_recall_ms"]),
        "new_client_first_turn_ms": med(lambda r: r["new_client"]["first_turn_ms"]),
        "cli_after_start_s": med(lambda r: r["cli_after_start_s"]),
        "cli_steady_s": med(lambda r: r["cli_steady_s"]),
        "start_s": med(lambda r: r["start_s"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=bench_dir("cold-start"))
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--per-probe", type=int, default=30, help="warm recalls and turns per round")
    parser.add_argument("--note", default="", help="a few words on what changed")
    parser.add_argument("--out", type=Path, default=HISTORY)
    args = parser.parse_args()
    data_dir = args.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(seed(data_dir, args.memories))
    started = time.time()
    load = os.getloadavg()[0]
    try:
        rounds = [one_round(REPO, data_dir, n, 3, args.per_probe) for n in range(args.rounds)]
    finally:
        from benchmarks.cold_start import run

        run(REPO, data_dir, "hippograph.app.cli", "neo4j", "stop")
    line = {
        **commit(),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "machine": {"cores": os.cpu_count(), "load_1m": round(load, 2), "python": platform.python_version()},
        "memories": args.memories,
        "rounds": args.rounds,
        **figures(rounds),
        "note": args.note,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    print(json.dumps(line, indent=2))


if __name__ == "__main__":
    main()
