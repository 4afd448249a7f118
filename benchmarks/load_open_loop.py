"""Open-loop load on the API: Locust sends a mix of recalls, writes, agent turns (the offline
scripted model) and listings at a constant arrival rate, whatever the answers' latency, to
``hippograph serve`` on 127.0.0.1. Reported per run: the rate asked for and sent, errors,
p50 / p90 / p95 / p99 / p99.9 / max latency over all requests and per operation, how late any
request was sent, and every 10 s the API's RSS, Neo4j's RSS and the Neo4j JVM's heap.

    python -m benchmarks.load_open_loop --search --seconds 600 --out load.json   # step search, then 10 min
    python -m benchmarks.load_open_loop --rate 8 --seconds 600                    # one run at a rate

The harness starts a local Neo4j (or uses ``HIPPOGRAPH_NEO4J_URI``), seeds one org of
``--users`` users with ``--memories`` memories each, creates a writer key, starts the server with
the hashing embedder and no Anthropic key (turns use the scripted model), runs Locust headless as
a subprocess (``--locust``: its command, from the ``load`` extra) with ``benchmarks/locustfile.py``
and stops everything it started. ``--search`` first runs short steps (``--step-seconds``) at
rising rates and keeps the highest that holds (0 errors, p99 ≤ 1 s, the rate sent, no request held
back by an earlier answer),
then runs ``--seconds`` at it. Before any of it, each operation is sent once per user, one at a
time, and ``--warmup-seconds`` run at ``--warmup-rate`` (not reported). The pieces without
Locust are in ``benchmarks.open_loop``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
from rich.console import Console

from benchmarks._cypher import run_file
from benchmarks._server import bench_neo4j
from benchmarks.api_bench import _free_port, _wait_ready, populate, start_server
from benchmarks.open_loop import (
    MIX,
    MemorySample,
    RequestRecord,
    StepSearch,
    build_report,
    interleave,
    passes,
    timetable,
)
from hippograph.app.access.keys import Role, create_key
from hippograph.app.api.repository import ApiRepository
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from tests.support.load import OPERATIONS, _failure

ROOT = Path(__file__).resolve().parent.parent


def request_plan(names: list[str], scopes: list[str], offset: int) -> list[dict[str, Any]]:
    """The request bodies in sending order: each operation's GraphQL document from the mix of
    ``tests/support/load.py``, its variables numbered from ``offset`` so that writes differ from
    one run to the next, the users taken in turn."""
    plan = []
    for k, name in enumerate(names):
        query, variables = OPERATIONS[name]
        i = offset + k
        plan.append({"name": name, "body": {"query": query, "variables": variables(scopes[i % len(scopes)], i)}})
    return plan


async def prime(url: str, token: str, scopes: list[str]) -> None:
    """Each operation once per user, one at a time: the server plans every statement once, instead
    of the first concurrent requests all planning the large recall statement at once."""
    import httpx

    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
        for i, scope in enumerate(scopes):
            for name in MIX:
                query, variables = OPERATIONS[name]
                problem = _failure(await http.post("/graphql", json={"query": query, "variables": variables(scope, i)}))
                if problem:
                    raise SystemExit(f"{name} failed before the load: {problem}")


class Sampler:
    """Every ``every`` seconds: the API's and Neo4j's RSS, and the JVM's heap over Bolt."""

    def __init__(self, conn: Neo4jConnection, api_pid: int, neo4j_pid: int | None, every: float = 10.0) -> None:
        self.conn = conn
        self.every = every
        self.api = psutil.Process(api_pid)
        self.neo4j = psutil.Process(neo4j_pid) if neo4j_pid else None

    async def sample(self, t: float) -> MemorySample:
        heap = (await run_file(self.conn, "get_jvm_memory"))[0]
        return MemorySample(
            t=round(t, 1),
            api_rss=self.api.memory_info().rss,
            neo4j_rss=self.neo4j.memory_info().rss if self.neo4j else None,
            heap_used=heap["heap_used"],
            heap_committed=heap["heap_committed"],
            heap_max=heap["heap_max"],
            old_gen_after_gc=heap["old_gen_after_gc"],
        )

    async def until(self, done: asyncio.Event, started: float) -> list[MemorySample]:
        """Samples from now until ``done`` is set (one at least), timed from ``started`` (monotonic)."""
        samples = []
        while True:
            samples.append(await self.sample(time.monotonic() - started))
            try:
                await asyncio.wait_for(done.wait(), self.every)
                return samples
            except TimeoutError:
                continue


async def run_locust(
    locust: list[str], url: str, token: str, scopes: list[str], rate: float, seconds: float, *, offset: int,
    headroom: float, sampler: Sampler, workdir: Path,
) -> dict[str, Any]:  # fmt: skip
    """One run of ``seconds`` at ``rate`` requests a second; its report."""
    table = timetable(rate, headroom)
    names = interleave(MIX, math.ceil(rate * seconds * 1.05) + table.users)
    plan = {"token": token, "rate": rate, "users": table.users, "interval": table.interval}
    plan["requests"] = request_plan(names, scopes, offset)
    plan_file, records_file = workdir / f"plan-{rate}.json", workdir / f"records-{rate}.jsonl"
    plan_file.write_text(json.dumps(plan))
    env = {
        **os.environ,
        "HIPPOGRAPH_LOAD_PLAN": str(plan_file),
        "HIPPOGRAPH_LOAD_RECORDS": str(records_file),
        "PYTHONPATH": str(ROOT),
    }
    cmd = [
        *locust, "-f", str(ROOT / "benchmarks" / "locustfile.py"), "--headless", "--host", url,
        "--users", str(table.users), "--spawn-rate", str(table.users), "--run-time", f"{seconds + 2:.0f}s",
        "--stop-timeout", "30", "--only-summary", "--loglevel", "WARNING", "--exit-code-on-error", "0",
    ]  # fmt: skip
    started = time.monotonic()
    done = asyncio.Event()
    sampling = asyncio.create_task(sampler.until(done, started))
    process = await asyncio.create_subprocess_exec(
        *cmd, env=env, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await process.communicate()
    done.set()
    samples = await sampling
    if process.returncode:
        raise SystemExit(f"locust failed ({process.returncode}):\n{output.decode()[-3000:]}")
    records = [RequestRecord(**json.loads(line)) for line in records_file.read_text().splitlines()]
    report = build_report(records, rate=rate, seconds=seconds, samples=samples)
    report["users"], report["interval_s"] = table.users, round(table.interval, 3)
    return report


def _line(report: dict[str, Any]) -> str:
    every = report["all"]
    return (
        f"{report['target_rps']:>6} req/s asked, {report['sent_rps']:>6} sent: {report['errors']} errors, "
        f"p50 {every.get('p50_ms')} ms, p99 {every.get('p99_ms')} ms, max {every.get('max_ms')} ms, "
        f"late {report['lag']['late']} (held back {report['lag']['blocked']}) → "
        f"{'held' if passes(report) else 'NOT held'}"
    )


async def main(a: argparse.Namespace) -> dict[str, Any]:
    console = Console()
    for key in ("ANTHROPIC_API_KEY", "HIPPOGRAPH_ANTHROPIC_API_KEY"):
        os.environ.pop(key, None)  # the server's turns run on the offline scripted model
    locust = a.locust.split() if a.locust else [shutil.which("locust") or "locust"]
    workdir = Path(tempfile.mkdtemp(prefix="hippograph-load-"))
    result: dict[str, Any] = {"mix": MIX, "users": a.users, "memories_per_user": a.memories, "headroom_s": a.headroom}
    with bench_neo4j(heap=a.heap, pagecache_mb=a.pagecache_mb) as neo4j:
        conn = await Neo4jConnection.connect(neo4j.uri, password=neo4j.password)
        org = Scope.root("org", f"load-{uuid.uuid4().hex[:6]}")
        try:
            await migrate(conn)
            repo = ApiRepository(conn)
            await repo.apply_schema()
            _, token = await create_key(repo.keys, org, Role.WRITER, name="load")
            users = [org.child("user", f"u{i}") for i in range(a.users)]
            memory = Memory(GraphStore(conn), HashingEmbeddings())
            rng = random.Random(7)
            vocab = [f"w{i}" + "".join(rng.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
            with console.status(f"seeding {a.users} × {a.memories:,} memories"):
                for user in users:
                    await populate(memory, user, a.memories, vocab)
            port = _free_port()
            server = start_server(neo4j.uri, neo4j.password or "", port, str(workdir / "api"))
            try:
                url = f"http://127.0.0.1:{port}"
                await _wait_ready(url)
                sampler = Sampler(conn, server.pid, neo4j.pid)
                scopes = [u.key for u in users]
                offset = 0

                async def run(rate: float, seconds: float) -> dict[str, Any]:
                    nonlocal offset
                    with console.status(f"{rate} req/s for {seconds:.0f} s"):
                        report = await run_locust(
                            locust, url, token, scopes, rate, seconds, offset=offset, headroom=a.headroom,
                            sampler=sampler, workdir=workdir,
                        )  # fmt: skip
                    offset += report["requests"] + 1
                    console.print(_line(report))
                    return report

                with console.status("priming"):
                    await prime(url, token, scopes)
                await run(a.warmup_rate, a.warmup_seconds)  # caches, the JIT; not reported
                rate = a.rate
                if a.search:
                    search = StepSearch(start=a.rate)
                    result["steps"] = []
                    while (step := search.next_rate()) is not None:
                        report = await run(step, a.step_seconds)
                        search.record(step, passes(report))
                        result["steps"].append({k: v for k, v in report.items() if k != "memory"})
                    if search.held is None:
                        raise SystemExit("no rate held")
                    rate = search.held
                result["run"] = await run(rate, a.seconds)
                result["held"] = passes(result["run"])
            finally:
                server.terminate()
                server.wait(timeout=60)
            await GraphStore(conn).delete_subtree(org)
        finally:
            await conn.close()
    if a.out:
        console.print(f"every run's plan and request records: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    console.print_json(json.dumps({k: v for k, v in result["run"].items() if k != "memory"}))
    memory_now = {k: v for k, v in result["run"]["memory"].items() if k != "samples"}
    console.print_json(json.dumps(memory_now))
    if a.out:
        a.out.write_text(json.dumps(result, indent=2))
    return result


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=4.0, help="requests a second (with --search: the first step's)")
    ap.add_argument("--seconds", type=float, default=600.0, help="the run's length")
    ap.add_argument("--search", action="store_true", help="find the highest rate held first")
    ap.add_argument("--step-seconds", type=float, default=60.0)
    ap.add_argument("--warmup-rate", type=float, default=2.0)
    ap.add_argument("--warmup-seconds", type=float, default=30.0)
    ap.add_argument("--headroom", type=float, default=10.0, help="seconds a user waits before it falls behind")
    ap.add_argument("--users", type=int, default=5, help="user scopes of the org the requests go to")
    ap.add_argument("--memories", type=int, default=2000, help="memories seeded per user")
    ap.add_argument("--heap", default="1g")
    ap.add_argument("--pagecache-mb", type=int, default=512)
    ap.add_argument("--locust", default=None, help="the locust command (default: `locust` on PATH)")
    ap.add_argument("--out", type=Path, default=None)
    return ap.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse(sys.argv[1:])))
