"""Open-loop load on the API: Locust sends a mix of recalls, writes, agent turns (the offline
scripted model) and listings at a constant arrival rate, whatever the answers' latency, to
``hippograph serve`` on 127.0.0.1. Reported per run: the rate asked for and sent, errors,
p50 / p90 / p95 / p99 / p99.9 / max latency over all requests and per operation, how late any
request was sent, and every 10 s the API's RSS, Neo4j's RSS and the Neo4j JVM's heap.

    python -m benchmarks.load_open_loop --search --seconds 600 --out load.json   # step search, then 10 min
    python -m benchmarks.load_open_loop --rate 8 --seconds 600                    # one run at a rate
    python -m benchmarks.load_open_loop --shape realtext --data locomo-dev.json --search --seconds 600
    python -m benchmarks.load_open_loop --rate 8 --seconds 120 --py-spy api.speedscope.json   # where the CPU goes

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

``--shape realtext`` seeds the real-text shape instead (:mod:`benchmarks.realtext`: an org of 20
leaf scopes, each with ``--memories`` real conversation turns ingested through ``Memory.ingest``
and embedded with the default MiniLM embedder; ``--corpus locomo`` or ``chitchat``), serves with
the default embedder, and sends the leaves' real questions as recall queries and turn messages
and their real turns as remembered facts. Every run also reports the CPU the API process and
Neo4j used (their share of one core, and the API's CPU milliseconds per request).

``--py-spy FILE`` records the API process with py-spy through the last run (speedscope format,
every thread, idle time left out; ``--py-spy-command``: its command, from the ``load`` extra)
and prints where its time went: the seconds each thread ran, the share of each package's own
code, the functions most often running, and hippograph's functions most often on the stack.
Py-spy's sampling takes CPU from the same machine: a run with it says where the time goes, not
the rate held.
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
    Variables,
    build_report,
    interleave,
    passes,
    realtext_variables,
    speedscope_summary,
    timetable,
)
from benchmarks.realtext import CORPORA, TEAMS, USERS, CachedEmbeddings, corpus_of, realtext_tree, seed_realtext
from hippograph.app.access.keys import Role, create_key
from hippograph.app.api.repository import ApiRepository
from hippograph.embeddings import HashingEmbeddings, default_embedder
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from tests.support.load import OPERATIONS, _failure

ROOT = Path(__file__).resolve().parent.parent
MEMORIES = {"synthetic": 2000, "realtext": 500}
"""``--memories``' default: per user scope (synthetic), per leaf scope (realtext): 10,000 in all."""


def synthetic_variables(name: str, scope: str, i: int) -> dict[str, Any]:
    """The synthetic shape's variables: those of the mix of ``tests/support/load.py``."""
    return OPERATIONS[name][1](scope, i)


def request_plan(
    names: list[str], scopes: list[str], offset: int, variables: Variables = synthetic_variables
) -> list[dict[str, Any]]:
    """The request bodies in sending order: each operation's GraphQL document from the mix of
    ``tests/support/load.py``, its variables numbered from ``offset`` so that writes differ from
    one run to the next, the scopes taken in turn."""
    plan = []
    for k, name in enumerate(names):
        i = offset + k
        body = {"query": OPERATIONS[name][0], "variables": variables(name, scopes[i % len(scopes)], i)}
        plan.append({"name": name, "body": body})
    return plan


async def prime(url: str, token: str, scopes: list[str], variables: Variables = synthetic_variables) -> None:
    """Each operation once per scope, one at a time: the server plans every statement once, instead
    of the first concurrent requests all planning the large recall statement at once."""
    import httpx

    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
        for i, scope in enumerate(scopes):
            for name in MIX:
                body = {"query": OPERATIONS[name][0], "variables": variables(name, scope, i)}
                problem = _failure(await http.post("/graphql", json=body))
                if problem:
                    raise SystemExit(f"{name} failed before the load: {problem}")


class Sampler:
    """Every ``every`` seconds: the API's and Neo4j's RSS, and the JVM's heap over Bolt."""

    def __init__(self, conn: Neo4jConnection, api_pid: int, neo4j_pid: int | None, every: float = 10.0) -> None:
        self.conn = conn
        self.every = every
        self.api = psutil.Process(api_pid)
        self.neo4j = psutil.Process(neo4j_pid) if neo4j_pid else None

    def cpu_seconds(self) -> dict[str, float]:
        """User plus system CPU seconds so far of the API and (when started here) Neo4j."""
        out = {}
        for name, process in (("api", self.api), ("neo4j", self.neo4j)):
            if process is not None:
                times = process.cpu_times()
                out[name] = times.user + times.system
        return out

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
    headroom: float, sampler: Sampler, workdir: Path, variables: Variables = synthetic_variables,
) -> dict[str, Any]:  # fmt: skip
    """One run of ``seconds`` at ``rate`` requests a second; its report."""
    table = timetable(rate, headroom)
    names = interleave(MIX, math.ceil(rate * seconds * 1.05) + table.users)
    plan = {"token": token, "rate": rate, "users": table.users, "interval": table.interval}
    plan["requests"] = request_plan(names, scopes, offset, variables)
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
    cpu_before = sampler.cpu_seconds()
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
    report["cpu"] = cpu_report(cpu_before, sampler.cpu_seconds(), time.monotonic() - started, report["requests"])
    return report


def cpu_report(before: dict[str, float], after: dict[str, float], wall: float, requests: int) -> dict[str, float]:
    """Each process's CPU over the run as a share of one core, and the API's per request."""
    out = {f"{k}_cpu_pct_of_a_core": round(100 * (after[k] - before[k]) / wall, 1) for k in before if wall}
    if "api" in before and requests:
        out["api_cpu_ms_per_request"] = round(1000 * (after["api"] - before["api"]) / requests, 1)
    return out


async def record_py_spy(command: list[str], pid: int, out: Path, seconds: float) -> asyncio.subprocess.Process:
    """Py-spy recording process ``pid`` for ``seconds`` into ``out`` (speedscope)."""
    cmd = [*command, "record", "--pid", str(pid), "--duration", f"{seconds:.0f}", "--rate", "100"]
    cmd += ["--nonblocking", "--format", "speedscope", "--output", str(out)]
    return await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)


async def py_spy_result(process: asyncio.subprocess.Process, out: Path) -> dict[str, Any]:
    """The summary of py-spy's file once it has finished (or why there is none)."""
    try:
        output, _ = await asyncio.wait_for(process.communicate(), 120)
    except TimeoutError:
        process.terminate()
        output, _ = await process.communicate()
    if process.returncode or not out.exists():
        return {"error": f"py-spy failed ({process.returncode}): {output.decode()[-500:]}"}
    return {"file": str(out), **speedscope_summary(json.loads(out.read_text()))}


def _line(report: dict[str, Any]) -> str:
    every = report["all"]
    cpu = report.get("cpu", {})
    return (
        f"{report['target_rps']:>6} req/s asked, {report['sent_rps']:>6} sent: {report['errors']} errors, "
        f"p50 {every.get('p50_ms')} ms, p99 {every.get('p99_ms')} ms, max {every.get('max_ms')} ms, "
        f"late {report['lag']['late']} (held back {report['lag']['blocked']}), "
        f"API CPU {cpu.get('api_cpu_pct_of_a_core')} % ({cpu.get('api_cpu_ms_per_request')} ms/request) → "
        f"{'held' if passes(report) else 'NOT held'}"
    )


async def main(a: argparse.Namespace) -> dict[str, Any]:
    console = Console()
    for key in ("ANTHROPIC_API_KEY", "HIPPOGRAPH_ANTHROPIC_API_KEY"):
        os.environ.pop(key, None)  # the server's turns run on the offline scripted model
    locust = a.locust.split() if a.locust else [shutil.which("locust") or "locust"]
    py_spy = a.py_spy_command.split() if a.py_spy_command else [shutil.which("py-spy") or "py-spy"]
    memories = a.memories or MEMORIES[a.shape]
    workdir = Path(tempfile.mkdtemp(prefix="hippograph-load-"))
    result: dict[str, Any] = {"mix": MIX, "shape": a.shape, "headroom_s": a.headroom}
    if a.shape == "realtext":
        result.update(corpus=a.corpus, leaves=TEAMS * USERS, memories_per_leaf=memories, embedder="minilm")
    else:
        result.update(users=a.users, memories_per_user=memories, embedder="hashing")
    with bench_neo4j(heap=a.heap, pagecache_mb=a.pagecache_mb) as neo4j:
        conn = await Neo4jConnection.connect(neo4j.uri, password=neo4j.password)
        org = Scope.root("org", f"load-{uuid.uuid4().hex[:6]}")
        try:
            await migrate(conn)
            repo = ApiRepository(conn)
            await repo.apply_schema()
            _, token = await create_key(repo.keys, org, Role.WRITER, name="load")
            scopes, variables = await seed(a, org, conn, memories, console)
            port = _free_port()
            server = start_server(neo4j.uri, neo4j.password or "", port, str(workdir / "api"), result["embedder"])
            try:
                url = f"http://127.0.0.1:{port}"
                await _wait_ready(url)
                sampler = Sampler(conn, server.pid, neo4j.pid)
                offset = 0

                async def run(rate: float, seconds: float) -> dict[str, Any]:
                    nonlocal offset
                    with console.status(f"{rate} req/s for {seconds:.0f} s"):
                        report = await run_locust(
                            locust, url, token, scopes, rate, seconds, offset=offset, headroom=a.headroom,
                            sampler=sampler, workdir=workdir, variables=variables,
                        )  # fmt: skip
                    offset += report["requests"] + 1
                    console.print(_line(report))
                    return report

                with console.status("priming"):
                    await prime(url, token, scopes, variables)
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
                spy = await record_py_spy(py_spy, server.pid, a.py_spy, a.seconds + 2) if a.py_spy else None
                result["run"] = await run(rate, a.seconds)
                result["held"] = passes(result["run"])
                if spy is not None and a.py_spy:
                    result["py_spy"] = await py_spy_result(spy, a.py_spy)
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
    if "py_spy" in result:
        console.print_json(json.dumps(result["py_spy"]))
    if a.out:
        a.out.write_text(json.dumps(result, indent=2))
    return result


async def seed(
    a: argparse.Namespace, org: Scope, conn: Neo4jConnection, memories: int, console: Console
) -> tuple[list[str], Variables]:
    """The scopes the requests go to, seeded with the shape's memories, and their variables."""
    if a.shape == "realtext":
        corpus = corpus_of(a.corpus, a.data)
        leaves = realtext_tree(org.levels[0].id)
        memory = Memory(GraphStore(conn), CachedEmbeddings(default_embedder()))
        with console.status(f"ingesting {len(leaves)} × {memories:,} turns"):
            asked = await seed_realtext(memory, leaves, corpus, memories, console)
        said = {leaf.key: [t.text for t in corpus.leaf_turns(i, memories)] for i, leaf in enumerate(leaves)}
        return [leaf.key for leaf in leaves], realtext_variables(asked, said)
    users = [org.child("user", f"u{i}") for i in range(a.users)]
    memory = Memory(GraphStore(conn), HashingEmbeddings())
    rng = random.Random(7)
    vocab = [f"w{i}" + "".join(rng.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
    with console.status(f"seeding {a.users} × {memories:,} memories"):
        for user in users:
            await populate(memory, user, memories, vocab)
    return [u.key for u in users], synthetic_variables


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=4.0, help="requests a second (with --search: the first step's)")
    ap.add_argument("--seconds", type=float, default=600.0, help="the run's length")
    ap.add_argument("--search", action="store_true", help="find the highest rate held first")
    ap.add_argument("--step-seconds", type=float, default=60.0)
    ap.add_argument("--warmup-rate", type=float, default=2.0)
    ap.add_argument("--warmup-seconds", type=float, default=30.0)
    ap.add_argument("--headroom", type=float, default=10.0, help="seconds a user waits before it falls behind")
    ap.add_argument("--shape", choices=("synthetic", "realtext"), default="synthetic", help="the data (see above)")
    ap.add_argument("--corpus", choices=CORPORA, default="locomo", help="--shape realtext: the conversations")
    ap.add_argument("--data", default=None, help="the LoCoMo file (--corpus locomo; default $HIPPOGRAPH_LOCOMO_DATA)")
    ap.add_argument("--users", type=int, default=5, help="user scopes of the org the requests go to (synthetic)")
    ap.add_argument(
        "--memories", type=int, default=None,
        help="memories seeded per user (synthetic, default 2000) or turns per leaf (realtext, default 500)",
    )  # fmt: skip
    ap.add_argument("--heap", default="1g")
    ap.add_argument("--pagecache-mb", type=int, default=512)
    ap.add_argument("--locust", default=None, help="the locust command (default: `locust` on PATH)")
    ap.add_argument("--py-spy", type=Path, default=None, help="record the API through the last run into this file")
    ap.add_argument("--py-spy-command", default=None, help="the py-spy command (default: `py-spy` on PATH)")
    ap.add_argument("--out", type=Path, default=None)
    return ap.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse(sys.argv[1:])))
