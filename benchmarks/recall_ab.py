"""Recall latency of two source trees side by side, on one server, in one run.

Populates (once, kept in ``--data-dir``) a local Neo4j exactly as ``recall_profile`` /
``recall_bench`` do (``--size`` memories over 100 leaf conversations of an org tree, NEXT
edges, cues), then alternates rounds between the trees: each round is one worker process per
tree (``PYTHONPATH=<tree>/src``) running the same ``--per-round`` queries — recall from a leaf
(hops 2, session and cue spreading on, ``track_access`` off, the query embedding excluded:
hashing embeddings) and, interleaved query by query, one raw vector-index query (k = 50)
through the driver, the floor. Rounds alternate which tree goes first, so machine load hits
both alike.

    python -m benchmarks.recall_ab --before ../before-tree --after . --size 10000 --rounds 8 --per-round 25

``--shape realtext`` serves the real-text shape instead (:mod:`benchmarks.realtext`: LoCoMo dev
turns over 20 leaves, MiniLM vectors, the samples' questions as queries; ``--size`` turns in
all, ``--data`` the LoCoMo file) and recalls with the default configuration (``track_access``
off, so every round sees the same data). Beside every recall, on either shape, one raw
vector-index query (k = 50) and the tree's own vector channel over the leaf's whole scope chain
(``search_vector_candidates``, the index path of recall's vector channel: 100 candidates, 400 fetched;
one in-index search per visible scope key before the chain interval, one per chain after) are
timed too.

With ``--before-data-dir`` each tree serves its own copy of the data with its own launcher
(e.g. the before tree's Neo4j 5.26 on one folder, the after tree's 2026 on a copy of it), both
servers up through the rounds; each tree's raw query then runs on its own server.

Prints p50 / p95 per tree, the raw floor per tree, and the ratios, then stops its servers
(the populated data stays in ``--data-dir``; ``--keep-servers`` leaves them running).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks import bench_dir
from benchmarks._server import RssSampler

HERE = Path(__file__).resolve().parent.parent
PASSWORD_ENV = "HIPPOGRAPH_AB_PASSWORD"


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1]


def synthetic_work(root: str, size: int, round_no: int, per_round: int) -> tuple[Any, Any, list[Any], list[Any]]:
    """The synthetic shape's engine config, embedder, leaves and ``(leaf, text)`` queries."""
    from benchmarks.recall_bench import tree, vocabulary
    from hippograph.embeddings import HashingEmbeddings
    from hippograph.retrieval.config import ActivationConfig, RecallConfig

    leaves = tree(root)
    vocab = vocabulary(size)  # the words the memories were written in
    rng = random.Random(1000 + round_no)
    work = []
    for q in range(per_round):
        leaf = leaves[(round_no * per_round + q) % len(leaves)]
        work.append((leaf, f"what about {rng.choice(vocab)} and {rng.choice(vocab)}"))
    cfg = RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2))
    return cfg, HashingEmbeddings(), leaves, work


def realtext_work(state: dict[str, Any], round_no: int, per_round: int) -> tuple[Any, Any, list[Any], list[Any]]:
    """The real-text shape's default config, its kept query vectors, leaves and queries."""
    from benchmarks.realtext import KnownEmbeddings, realtext_tree
    from hippograph.retrieval.config import RecallConfig

    leaves = realtext_tree(state["root"])
    work = []
    for q in range(round_no * per_round, (round_no + 1) * per_round):
        leaf = leaves[q % len(leaves)]
        asked = state["questions"][leaf.key]
        work.append((leaf, asked[(q // len(leaves)) % len(asked)]))
    embedder = KnownEmbeddings(state["vectors"], state.get("model_id"))
    return RecallConfig(track_access=False), embedder, leaves, work


async def worker(
    uri: str, password: str, root: str, size: int, round_no: int, per_round: int, now: float,
    state_file: Path | None = None,
) -> dict[str, Any]:  # fmt: skip
    """One round in the tree on ``sys.path``: recall, raw and vector-channel latencies in ms (the
    real-text shape when ``state_file`` is its state)."""
    import hippograph
    from hippograph.retrieval.engine import RecallEngine
    from hippograph.retrieval.queries import RetrievalQuery
    from hippograph.retrieval.recall_state import SEARCH_PER_KEY
    from hippograph.store import GraphStore, Neo4jConnection
    from hippograph.store.queries import MemoryQuery

    conn = await Neo4jConnection.connect(uri, password=password)
    store = GraphStore(conn)
    if state_file is None:
        cfg, embedder, leaves, queries = synthetic_work(root, size, round_no, per_round)
    else:
        cfg, embedder, leaves, queries = realtext_work(json.loads(state_file.read_text()), round_no, per_round)
    engine = RecallEngine(store, embedder, cfg)
    all_keys = sorted({k for leaf in leaves for k in leaf.ancestor_keys()})
    work = [(leaf, text, await embedder.embed(text)) for leaf, text in queries]
    n = cfg.candidates_per_channel
    channel = conn.capabilities.pick(
        RetrievalQuery.SEARCH_VECTOR_CANDIDATES, RetrievalQuery.SEARCH_VECTOR_CANDIDATES_LTS
    )

    async def chain_channel(leaf: Any, vec: list[float]) -> None:
        chain = leaf.chain_points() if hasattr(leaf, "chain_points") else []  # a tree from before it
        await conn.read(
            channel, vector=vec, visible=leaf.ancestor_keys(), chain=chain, layers=None, k=n,
            fetch_k=max(store.vector_fetch_k, SEARCH_PER_KEY * n),
        )  # fmt: skip

    for leaf, text, _vec in work[:3]:  # warm-up: driver pool, plans
        await engine.recall(leaf, text, now=now)
        await chain_channel(leaf, _vec)
    out: dict[str, Any] = {"recall": [], "raw": [], "channel": [], "tree": hippograph.__file__, "items": []}
    for leaf, text, vec in work:
        t = time.perf_counter()
        await chain_channel(leaf, vec)
        out["channel"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await store.conn.read(
            MemoryQuery.SEARCH_VECTOR_INDEX,
            vector_index=store.conn.capabilities.vector_index,
            vector=vec,
            visible=all_keys,
            layers=None,
            k=50,
            fetch_k=50,
        )
        out["raw"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        result = await engine.recall(leaf, text, now=now)
        out["recall"].append((time.perf_counter() - t) * 1000)
        out["items"].append([[i.node.id, i.score] for i in result.items])
    await conn.close()
    return out


def same(a: list[list[Any]], b: list[list[Any]]) -> bool:
    """Same memories in the same order, scores equal to 1e-6."""
    if [i for i, _ in a] != [i for i, _ in b]:
        return False
    return all(abs(x - y) <= 1e-6 for (_, x), (_, y) in zip(a, b, strict=True))


def run_worker(
    tree_dir: Path, uri: str, password: str, root: str, size: int, round_no: int, per: int, now: float,
    state_file: Path | None = None,
) -> Any:  # fmt: skip
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}", PASSWORD_ENV: password}
    args = [sys.executable, "-m", "benchmarks.recall_ab", "--worker", uri, root]
    args += ["--size", str(size), "--round", str(round_no), "--per-round", str(per), "--now", repr(now)]
    args += ["--state-file", str(state_file)] if state_file else []
    done = subprocess.run(args, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"worker in {tree_dir} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


async def serve(
    data_dir: Path, size: int, heap: str, pagecache_mb: int, writers: int, bulk: bool, shape: str, data: str | None
) -> tuple[str, str, str, Any]:
    data_dir.mkdir(parents=True, exist_ok=True)
    if shape == "realtext":
        from benchmarks.realtext import TEAMS, USERS, open_realtext_store

        server, store, leaves, state = await open_realtext_store(
            data_dir, size // (TEAMS * USERS), Console(), heap=heap, pagecache_mb=pagecache_mb, data=data
        )
    else:
        from benchmarks.recall_profile import open_store

        server, store, leaves, state = await open_store(
            data_dir, size, Console(), heap=heap, pagecache_mb=pagecache_mb, writers=writers, bulk=bulk
        )
    await store.conn.close()
    status = server.status()
    root = leaves[0].levels[0].id
    return str(status.uri), server.password(), root, {"pid": status.pid, **state.get("load", {})}


def serve_in(tree_dir: Path, data_dir: Path, size: int, server_cfg: dict[str, Any]) -> tuple[str, str, str, Any]:
    """:func:`serve` run by ``tree_dir``'s own package (its launcher, its Neo4j, its migrations)."""
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}"}
    args = [sys.executable, "-m", "benchmarks.recall_ab", "--serve", "--size", str(size), "--data-dir", str(data_dir)]
    args += ["--heap", server_cfg["heap"], "--pagecache-mb", str(server_cfg["pagecache_mb"])]
    args += ["--writers", str(server_cfg["writers"])] + (["--bulk"] if server_cfg["bulk"] else [])
    args += ["--shape", server_cfg["shape"]] + (["--data", server_cfg["data"]] if server_cfg["data"] else [])
    done = subprocess.run(args, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"serving {data_dir} from {tree_dir} failed:\n{done.stderr[-3000:]}")
    uri, password, root, load = json.loads(done.stdout.strip().splitlines()[-1])
    return uri, password, root, load


def main(
    before: Path,
    after: Path,
    size: int,
    rounds: int,
    per: int,
    data_dir: Path,
    server_cfg: dict[str, Any],
    before_data_dir: Path | None = None,
    keep_servers: bool = False,
) -> None:
    console = Console()
    pids: list[int] = []
    try:
        _compare(console, pids, before, after, size, rounds, per, data_dir, server_cfg, before_data_dir)
    finally:
        if not keep_servers:
            for pid in pids:
                stop_server(pid)
            console.print(f"stopped the benchmark's Neo4j (pids {pids}); the populated data stays for the next run")


def stop_server(pid: int, timeout: float = 120.0) -> None:
    """Ask a benchmark Neo4j to shut down (SIGTERM: a clean stop) and wait until it has gone."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.5)
    os.kill(pid, signal.SIGKILL)


def _compare(
    console: Console,
    pids: list[int],
    before: Path,
    after: Path,
    size: int,
    rounds: int,
    per: int,
    data_dir: Path,
    server_cfg: dict[str, Any],
    before_data_dir: Path | None,
) -> None:
    servers: dict[str, tuple[str, str, str, Path | None]] = {}
    for name, tree_dir, folder in (("before", before, before_data_dir), ("after", after, data_dir)):
        if folder is None:
            continue
        uri, password, root, load = serve_in(tree_dir, folder, size, server_cfg)
        pids.append(pid := load.pop("pid"))
        state_file = folder / "realtext_state.json" if server_cfg["shape"] == "realtext" else None
        servers[name] = (uri, password, root, state_file)
        console.print(
            f"{name} server ({folder}): heap {server_cfg['heap']} (applies when this run started it), page cache "
            f"{server_cfg['pagecache_mb']} MiB, pid {pid}; how it was loaded: {load}"
        )
    servers.setdefault("before", servers["after"])
    if rounds == 0:
        return
    kinds = ("raw", "channel", "recall")
    lat: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in kinds} for name in ("before", "after")}
    differ = 0
    now = time.time()  # one clock for every worker: recency must not differ between the trees
    with RssSampler(pids[-1]) as rss, RssSampler(pids[0] if len(pids) > 1 else None) as rss_before:
        for r in range(rounds):
            order = [("before", before), ("after", after)]
            results = {}
            for name, tree_dir in order if r % 2 == 0 else order[::-1]:
                uri, password, root, state_file = servers[name]
                results[name] = out = run_worker(tree_dir, uri, password, root, size, r, per, now, state_file)
                for kind in kinds:
                    lat[name][kind] += out[kind]
                console.print(f"round {r + 1}/{rounds} {name}: recall p50 {statistics.median(out['recall']):.1f} ms")
            differ += sum(
                not same(a, b) for a, b in zip(results["before"]["items"], results["after"]["items"], strict=True)
            )
    what = "real text, default config" if server_cfg["shape"] == "realtext" else "hops 2"
    table = Table(title=f"recall at {size:,}, {what}, {rounds} alternating rounds × {per} queries, same server")
    for col in ("what", "p50 ms", "p95 ms", "p95 ÷ raw p95", "p95 ÷ channel p95 (same tree's run)"):
        table.add_column(col)
    for name in ("before", "after"):
        raw95, channel95 = pct(lat[name]["raw"], 95), pct(lat[name]["channel"], 95)
        for kind in kinds:
            xs = lat[name][kind]
            p95 = pct(xs, 95)
            table.add_row(f"{name}: {kind}", f"{pct(xs, 50):.1f}", f"{p95:.1f}", f"{p95 / raw95:.2f}",
                          f"{p95 / channel95:.2f}")  # fmt: skip
    b, a = lat["before"]["recall"], lat["after"]["recall"]
    table.add_row("before ÷ after", f"{pct(b, 50) / pct(a, 50):.2f}×", f"{pct(b, 95) / pct(a, 95):.2f}×", "", "")
    table.add_row("recalls whose items or scores differ", f"{differ} / {rounds * per}", "", "", "")
    table.add_row("Neo4j peak RSS during the rounds", f"{rss.peak >> 20:,} MiB", "", "", "")
    if rss_before.pid:
        table.add_row("before's Neo4j peak RSS during the rounds", f"{rss_before.peak >> 20:,} MiB", "", "", "")
    console.print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    console.print(table)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", nargs=2, metavar=("URI", "ROOT"))
    ap.add_argument("--serve", action="store_true", help="(internal) start and populate, print uri/password/root")
    ap.add_argument("--before-data-dir", type=Path, default=None, help="the before tree serves this copy itself")
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=HERE)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--per-round", type=int, default=25)
    ap.add_argument("--round", type=int, default=0)
    ap.add_argument("--now", type=float, default=None)
    ap.add_argument("--data-dir", type=Path, default=None, help="kept, populated server (default per size)")
    ap.add_argument("--heap", default="2g", help="Neo4j heap of the kept server (applies when it starts)")
    ap.add_argument("--pagecache-mb", type=int, default=1536)
    ap.add_argument("--writers", type=int, default=2, help="leaves written at once while populating")
    ap.add_argument("--bulk", action="store_true", help="populate by an offline import (benchmarks.bulk_load)")
    ap.add_argument("--shape", choices=("synthetic", "realtext"), default="synthetic", help="the data (see above)")
    ap.add_argument("--data", default=None, help="the LoCoMo file (--shape realtext; default $HIPPOGRAPH_LOCOMO_DATA)")
    ap.add_argument("--state-file", type=Path, default=None, help="(internal) the real-text shape's state")
    ap.add_argument("--keep-servers", action="store_true", help="leave the populated servers running at the end")
    a = ap.parse_args()
    if a.worker:
        uri, root = a.worker
        print(
            json.dumps(
                asyncio.run(
                    worker(
                        uri,
                        os.environ[PASSWORD_ENV],
                        root,
                        a.size,
                        a.round,
                        a.per_round,
                        a.now or time.time(),
                        a.state_file,
                    )
                )
            )
        )
    else:
        data_dir = a.data_dir or bench_dir(f"recall-ab-{a.size}" + ("-realtext" if a.shape == "realtext" else ""))
        server_cfg = {"heap": a.heap, "pagecache_mb": a.pagecache_mb, "writers": a.writers, "bulk": a.bulk,
                      "shape": a.shape, "data": a.data}  # fmt: skip
        if a.serve:
            print(json.dumps(asyncio.run(serve(data_dir, a.size, **server_cfg))))
        else:
            before = (a.before or a.after).resolve()
            main(
                before,
                a.after.resolve(),
                a.size,
                a.rounds,
                a.per_round,
                data_dir,
                server_cfg,
                a.before_data_dir,
                a.keep_servers,
            )
