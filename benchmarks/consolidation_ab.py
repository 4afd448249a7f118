"""Consolidation speed of two source trees side by side, on one server, in one run.

For each size and round, each tree in turn (the order alternates by round, so machine load
hits both alike): the same world as ``consolidation_bench`` (N fresh memories, half episodic,
half semantic, ids fixed by the seed) is written into the same scope key; a worker process of
that tree (``PYTHONPATH=<tree>/src``) warms the query plans on a tiny scope and then times
``SleepConsolidator.run`` twice (the first run does the work, the second finds what is left);
then the end state of the scope — every memory with all its properties and outgoing edges
(edge ids aside), and the lease's watermarks — is hashed and the scope erased. Both trees see
the same clock, so the same code must leave the same hash.

    python -m benchmarks.consolidation_ab --before ../before-tree --after . --sizes 10000 --rounds 3
    python -m benchmarks.consolidation_ab --before ../before-tree --after . --sizes 100000 --rounds 1

The server: ``HIPPOGRAPH_NEO4J_URI`` when set, else a throwaway local Neo4j with the default
512 MiB of transaction memory (see ``consolidation_bench.server``). With ``--before-data-dir``
the before tree gets a server of its own, started by its own package (its launcher, its Neo4j,
its schema: trees whose schema the after tree's server does not have), and seeds, hashes and
erases there with its own package too. Prints per-phase medians
per tree with the ratio, the wall time of both runs, and whether the end states are equal.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks._cypher import run_file

HERE = Path(__file__).resolve().parent.parent
PASSWORD_ENV = "HIPPOGRAPH_AB_PASSWORD"
PAGE = 2000


async def worker(uri: str, password: str, key: str, now: float, runs: int) -> dict[str, Any]:
    """In the tree on ``sys.path``: warm the plans, then time ``runs`` consolidation runs."""
    import hippograph
    from benchmarks.consolidation_bench import seed
    from hippograph.consolidation import SleepConsolidator
    from hippograph.scope import Scope
    from hippograph.store import GraphStore, Neo4jConnection

    conn = await Neo4jConnection.connect(uri, password=password)
    store = GraphStore(conn)
    sleeper = SleepConsolidator(conn, clock=lambda: now)
    quiet = Console(quiet=True)
    tiny = Scope.root("org", f"warm-{uuid.uuid4().hex[:8]}")
    await seed(store, tiny, 400, now, quiet)
    started = time.perf_counter()
    await sleeper.run(tiny)
    warm = time.perf_counter() - started
    await store.delete_subtree(tiny)
    out: dict[str, Any] = {"tree": hippograph.__file__, "warm_s": warm, "runs": []}
    for _ in range(runs):
        started = time.perf_counter()
        report = await sleeper.run(Scope.parse(key))
        wall = time.perf_counter() - started
        phases = [
            {"name": p.name.value, "ms": p.duration_ms or 0.0, "counts": p.counts, "skip": p.skip_reason}
            for p in report.phases_run
        ]
        out["runs"].append({"wall_s": wall, "status": report.status.value, "phases": phases})
    await conn.close()
    return out


def in_tree(tree: Path, *args: str, password: str = "") -> Any:
    """``benchmarks.consolidation_ab *args`` run by ``tree``'s own package; its last line as JSON."""
    env = {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{HERE}", PASSWORD_ENV: password}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.consolidation_ab", *args],
        env=env, cwd=HERE, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"{args[0]} in {tree} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_worker(tree: Path, uri: str, password: str, key: str, now: float, runs: int) -> dict[str, Any]:
    result: dict[str, Any] = in_tree(
        tree, "--worker", uri, key, "--now", repr(now), "--runs", str(runs), password=password
    )
    return result


async def end_state(conn: Any, key: str, prefix: str, dump: Path | None) -> tuple[str, dict[str, int]]:
    """A hash of the subtree's memories, their edges and the lease's bookkeeping; and counts.
    With ``dump``, every hashed line is written there too (to diff two end states)."""
    digest = hashlib.sha256()
    lines = []
    counts: Counter[str] = Counter()
    after = ""
    while True:
        rows = await run_file(conn, "get_subtree_page", scope_key=key, subtree_prefix=prefix, after=after, limit=PAGE)
        for row in rows:
            node = row["node"]
            node["out"] = sorted(json.dumps(r, sort_keys=True, default=str) for r in node["out"])
            line = json.dumps(node, sort_keys=True, default=str)
            digest.update(line.encode())
            lines.append(line)
            counts[f"memories {node['layer']}"] += 1
            counts["retracted"] += bool(node.get("retracted"))
            for rel in node["out"]:
                counts[f"edges {json.loads(rel)['type']}"] += 1
        if len(rows) < PAGE:
            break
        after = rows[-1]["node"]["id"]
    lease = await run_file(conn, "get_lease_state", scope_key=key)
    digest.update(json.dumps(lease, sort_keys=True, default=str).encode())
    if dump is not None:
        dump.write_text("\n".join([*lines, json.dumps(lease, sort_keys=True, default=str)]) + "\n")
    return digest.hexdigest()[:16], dict(sorted(counts.items()))


async def one(
    uri: str, password: str, tree: Path, size: int, now: float, runs: int, console: Console, dump: Path | None
) -> dict[str, Any]:
    """Seed the size's scope, let ``tree`` consolidate it, hash the end state, erase it."""
    from benchmarks.consolidation_bench import seed
    from hippograph.scope import Scope
    from hippograph.store import GraphStore, Neo4jConnection

    conn = await Neo4jConnection.connect(uri, password=password)
    store = GraphStore(conn)
    scope = Scope.root("org", f"ab{size}")
    try:
        await store.delete_subtree(scope)  # what an interrupted earlier run left behind
        await seed(store, scope, size, now, console, tag="m")
        result = run_worker(tree, uri, password, scope.key, now, runs)
        result["hash"], result["counts"] = await end_state(conn, scope.key, scope.subtree_prefix, dump)
        await store.delete_subtree(scope)
    finally:
        await conn.close()
    return result


def phase_table(size: int, results: dict[str, list[dict[str, Any]]], run_no: int) -> Table:
    title = "first run" if run_no == 0 else f"run #{run_no + 1} over the same scope"
    table = Table(title=f"{size:,} memories, {title}: median ms per phase ({len(results['before'])} rounds)")
    for col in ("phase", "before ms", "after ms", "before ÷ after", "after counts"):
        table.add_column(col, justify="left" if col in ("phase", "after counts") else "right")
    names = [p["name"] for p in results["after"][0]["runs"][run_no]["phases"]]

    def ms(name: str, side: str) -> float:
        got = [p["ms"] for r in results[side] for p in r["runs"][run_no]["phases"] if p["name"] == name]
        return statistics.median(got) if got else float("nan")

    for name in names:
        b, a = ms(name, "before"), ms(name, "after")
        counts = next(p for p in results["after"][0]["runs"][run_no]["phases"] if p["name"] == name)
        shown = ", ".join(f"{k} {v:,}" for k, v in counts["counts"].items()) or (counts["skip"] or "")
        table.add_row(name, f"{b:,.0f}", f"{a:,.0f}", f"{b / a:.2f}×" if a > 0 else "", shown)
    walls = {s: statistics.median(r["runs"][run_no]["wall_s"] for r in results[s]) for s in ("before", "after")}
    table.add_row(
        "[b]wall (whole run)[/b]",
        f"{walls['before'] * 1000:,.0f}",
        f"{walls['after'] * 1000:,.0f}",
        f"{walls['before'] / walls['after']:.2f}×",
        "",
    )
    return table


@asynccontextmanager
async def served_by(
    tree: Path, data_dir: Path | None, heap: str, pagecache: int, console: Console
) -> AsyncIterator[list[str]]:
    """``[uri, password]`` of ``data_dir``'s server started by ``tree``'s package (``[]``
    without a folder), stopped by it at the end."""
    if data_dir is None:
        yield []
        return
    own: list[str] = in_tree(tree, "--serve", str(data_dir), "--heap", heap, "--pagecache-mb", str(pagecache))
    console.print(f"{tree}'s own server: {own[0]} ({data_dir})")
    try:
        yield own
    finally:
        in_tree(tree, "--stop-server", str(data_dir))


async def own_server(data_dir: Path, heap: str, pagecache: int, *, stop: bool = False) -> list[str]:
    """(internal) The kept server of ``data_dir`` started (migrated) or stopped by the package on
    ``sys.path``; ``[uri, password]``."""
    from hippograph.store import Neo4jConnection, migrate

    try:
        from hippograph.dbms import LocalNeo4j
    except ImportError:  # a tree from before the dbms package serves its own server
        from hippograph.store import LocalNeo4j  # type: ignore[attr-defined,no-redef]

    local = LocalNeo4j(data_dir, heap=heap, pagecache_mb=pagecache)
    if stop:
        local.stop()
        return []
    status = local.start(timeout=400)
    conn = await Neo4jConnection.connect(str(status.uri), password=local.password())
    await migrate(conn)
    await conn.close()
    return [str(status.uri), local.password()]


async def main(
    before: Path,
    after: Path,
    sizes: list[int],
    rounds: int,
    runs: int,
    dump: Path | None,
    heap: str,
    pagecache: int,
    before_data_dir: Path | None = None,
) -> None:
    from benchmarks.consolidation_bench import server
    from hippograph.store import Neo4jConnection, migrate

    console = Console()
    now = time.time()  # one clock for every worker: the same world must end the same way
    own_server_of_before = served_by(before, before_data_dir, heap, pagecache, console)
    async with server(console, heap, pagecache) as (uri, password), own_server_of_before as own:
        conn = await Neo4jConnection.connect(uri, password=password)
        await migrate(conn)
        await conn.close()
        for size in sizes:
            results: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
            for r in range(rounds):
                order = [("before", before), ("after", after)]
                for name, tree in order if r % 2 == 0 else order[::-1]:
                    file = dump / f"{size}-{name}-{r + 1}.jsonl" if dump else None
                    if name == "before" and own:
                        args = [
                            "--one",
                            own[0],
                            str(size),
                            "--tree",
                            str(tree),
                            "--now",
                            repr(now),
                            "--runs",
                            str(runs),
                        ]
                        got = in_tree(tree, *args, *(["--dump", str(file)] if file else []), password=own[1])
                    else:
                        got = await one(uri, password or "", tree, size, now, runs, console, file)
                    results[name].append(got)
                    walls = " + ".join(f"{x['wall_s']:.2f}" for x in got["runs"])
                    console.print(f"{size:,} round {r + 1}/{rounds} {name}: {walls} s, end state {got['hash']}")
            report(console, size, results, runs)


def report(console: Console, size: int, results: dict[str, list[dict[str, Any]]], runs: int) -> None:
    """The phase tables of every run, and whether both trees left the same end state."""
    for run_no in range(runs):
        console.print(phase_table(size, results, run_no))
    hashes = {s: {r["hash"] for r in results[s]} for s in results}
    same = len(hashes["before"] | hashes["after"]) == 1
    console.print(f"end state {size:,}: before {sorted(hashes['before'])}, after {sorted(hashes['after'])}")
    console.print(f"[b]same end state: {'yes' if same else 'NO'}[/b]; counts (after): {results['after'][0]['counts']}")
    if not same:
        console.print(f"counts (before): {results['before'][0]['counts']}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--worker", nargs=2, metavar=("URI", "SCOPE_KEY"))
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=HERE)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=2, help="consolidation runs per round (the first does the work)")
    ap.add_argument("--now", type=float, default=None)
    ap.add_argument("--heap", default="3g", help="the throwaway server's heap (1g is enough at 10k)")
    ap.add_argument("--pagecache-mb", type=int, default=2048)
    ap.add_argument("--dump", type=Path, default=None, help="write each end state here, one JSON line per memory")
    ap.add_argument("--before-data-dir", type=Path, default=None, help="the before tree's own server")
    ap.add_argument("--one", nargs=2, metavar=("URI", "SIZE"), help="(internal) one round of --tree on its server")
    ap.add_argument("--tree", type=Path, default=None, help="(internal) the tree --one times")
    ap.add_argument("--serve", type=Path, default=None, help="(internal) start this folder's server")
    ap.add_argument("--stop-server", type=Path, default=None, help="(internal) stop this folder's server")
    a = ap.parse_args()
    if a.serve or a.stop_server:
        print(
            json.dumps(
                asyncio.run(own_server(a.serve or a.stop_server, a.heap, a.pagecache_mb, stop=bool(a.stop_server)))
            )
        )
    elif a.one:
        uri, size = a.one
        quiet = Console(quiet=True)
        got = asyncio.run(one(uri, os.environ[PASSWORD_ENV], a.tree, int(size), a.now, a.runs, quiet, a.dump))
        print(json.dumps(got))
    elif a.worker:
        uri, key = a.worker
        print(json.dumps(asyncio.run(worker(uri, os.environ[PASSWORD_ENV], key, a.now or time.time(), a.runs))))
    else:
        if a.before is None:
            ap.error("--before is required")
        if a.dump:
            a.dump.mkdir(parents=True, exist_ok=True)
        asyncio.run(
            main(
                a.before.resolve(),
                a.after.resolve(),
                a.sizes,
                a.rounds,
                a.runs,
                a.dump,
                a.heap,
                a.pagecache_mb,
                a.before_data_dir,
            )
        )
