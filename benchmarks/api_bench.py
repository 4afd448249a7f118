"""The API's own overhead: ``recall`` over GraphQL with 50 concurrent
clients on loopback, against the same recall called from Python, in one run.

Seeds one user scope of a fresh org with N memories (default 10,000: synthetic sentences from a
5,000-word vocabulary, chained into sessions by NEXT, embedded with the hashing embedder — the
server is started with the same one, so the query and the memories share a vector space and
the model's cost is not what is measured). Then:

* ``library``: 50 asyncio tasks call ``Memory.recall`` in this process;
* ``graphql``: ``hippograph serve`` runs in its own process (uvicorn, one worker); 50 httpx
  clients post the ``recall`` query with a writer key (auth and the rate-limit ledger included).

Reported: throughput, p50 / p95 / p99 latency, Cypher calls per request (the API's
``extensions.cypherCalls`` plus the key check), and the API / library latency ratio.

    python -m benchmarks.api_bench --memories 10000 --requests 1000 --concurrency 50
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from benchmarks._server import bench_store
from hippograph.app.access.keys import Role, create_key
from hippograph.app.api.repository import ApiRepository
from hippograph.cues import cues_of
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.memory_internals import internals

SESSION = 20
QUERY = """query($s: String!, $q: String!) { recall(scope: $s, query: $q, first: 10) {
  items { score scopeDistance memory { id content } channels { channel rank } parts { relevance } }
  activation { seeds capped } timings { totalMs } } }"""


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1] if len(xs) > 1 else xs[0]


async def populate(memory: Memory, scope: Scope, size: int, vocab: list[str]) -> None:
    rng = random.Random(size)
    texts = [" ".join(rng.choice(vocab) for _ in range(12)) for _ in range(size)]
    vectors = await internals(memory).services.embedder.embed_batch(texts)
    nodes = [
        MemoryNode(layer=Layer.EPISODIC, content=t, embedding=v, session_id=f"s{i // SESSION}")
        for i, (t, v) in enumerate(zip(texts, vectors, strict=True))
    ]
    for start in range(0, size, 1000):
        chunk = nodes[start : start + 1000]
        await internals(memory).store.add_nodes(scope, chunk, cues={n.id: cues_of(n) for n in chunk})
    edges = [
        MemoryEdge(source=a.id, target=b.id, relationship=Relationship.NEXT)
        for a, b in itertools.pairwise(nodes)
        if a.session_id == b.session_id
    ]
    for start in range(0, len(edges), 2000):
        await internals(memory).store.upsert_edges(scope, edges[start : start + 2000], increment=0.0)


async def hammer(
    call: Callable[[str], Awaitable[int]], queries: list[str], concurrency: int
) -> tuple[list[float], float, list[int]]:
    latencies: list[float] = []
    calls: list[int] = []
    pending = iter(queries)

    async def worker() -> None:
        for q in pending:
            t0 = time.perf_counter()
            calls.append(await call(q))
            latencies.append((time.perf_counter() - t0) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies, time.perf_counter() - started, calls


def start_server(
    uri: str, password: str, port: int, data_dir: str, embedder: str = "hashing"
) -> subprocess.Popen[bytes]:
    """``hippograph serve`` on 127.0.0.1:``port`` with ``embedder`` (``hashing``, or ``minilm``: the default)."""
    env = {
        **os.environ,
        "HIPPOGRAPH_NEO4J_URI": uri,
        "HIPPOGRAPH_NEO4J_PASSWORD": password,
        "HIPPOGRAPH_DATA_DIR": data_dir,
        "HIPPOGRAPH_API_RATE_LIMIT_PER_MINUTE": "100000000",
        # quick naps off: the load runs' turns measure the turn, and compare with earlier runs
        "HIPPOGRAPH_API_CONSOLIDATION__TURNS_BETWEEN_NAPS": "0",
    }
    cmd = [sys.executable, "-m", "hippograph.app.cli", "serve", "--port", str(port), "--embedder", embedder]
    return subprocess.Popen([*cmd, "--log-level", "warning"], env=env)


async def main(size: int, requests: int, concurrency: int, out: Path | None) -> dict[str, float]:
    console = Console()
    rng = random.Random(7)
    vocab = [f"w{i}" + "".join(rng.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
    queries = [" ".join(rng.choice(vocab) for _ in range(6)) for _ in range(requests)]
    results: dict[str, float] = {"memories": size, "requests": requests, "concurrency": concurrency}
    async with bench_store() as (store, _pid):
        conn = store.conn
        memory = Memory(GraphStore(conn), HashingEmbeddings())
        org = Scope.root("org", f"bench-{uuid.uuid4().hex[:6]}")
        user = org.child("user", "u1")
        try:
            with console.status(f"writing {size:,} memories"):
                t0 = time.perf_counter()
                await populate(memory, user, size, vocab)
            console.print(f"wrote {size:,} memories in {time.perf_counter() - t0:.0f} s")
            repo = ApiRepository(conn)
            await repo.apply_schema()
            _, token = await create_key(repo.keys, org, Role.READER, name="bench")

            await memory.recall(user, queries[0], top_k=10)  # warm up
            lib_lat, lib_wall, _ = await hammer(lambda q: _lib(memory, user, q), queries, concurrency)

            port = _free_port()
            uri = conn.uri
            password = os.environ.get("HIPPOGRAPH_NEO4J_PASSWORD") or _password_of(store)
            server = start_server(uri, password, port, str(Path.cwd() / ".hippograph-bench"))
            try:
                url = f"http://127.0.0.1:{port}"
                await _wait_ready(url)
                limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
                async with httpx.AsyncClient(
                    base_url=url, headers={"Authorization": f"Bearer {token}"}, limits=limits, timeout=120
                ) as http:

                    async def over_http(q: str) -> int:
                        r = await http.post("/graphql", json={"query": QUERY, "variables": {"s": user.key, "q": q}})
                        body = r.json()
                        assert r.status_code == 200 and not body.get("errors"), body
                        return int(body["extensions"]["cypherCalls"]) + 1  # + the key check

                    await over_http(queries[0])
                    api_lat, api_wall, calls = await hammer(over_http, queries, concurrency)
            finally:
                server.terminate()
                server.wait(timeout=60)
        finally:
            await memory.forget(org)

    table = Table(title=f"recall at {size:,} memories, {concurrency} concurrent clients, {requests} requests")
    for col in ("path", "req/s", "p50 ms", "p95 ms", "p99 ms", "Cypher calls / request"):
        table.add_column(col)
    for name, lat, wall, cyph in (
        ("library (Python call)", lib_lat, lib_wall, None),
        ("GraphQL over HTTP", api_lat, api_wall, calls),
    ):
        row = {
            "rps": len(lat) / wall,
            "p50": pct(lat, 50),
            "p95": pct(lat, 95),
            "p99": pct(lat, 99),
        }
        key = "library" if cyph is None else "graphql"
        results.update({f"{key}_{k}": round(v, 2) for k, v in row.items()})
        calls_text = "—" if cyph is None else f"{statistics.mean(cyph):.1f}"
        if cyph is not None:
            results["graphql_cypher_calls"] = statistics.mean(cyph)
        table.add_row(
            name, f"{row['rps']:.1f}", f"{row['p50']:.0f}", f"{row['p95']:.0f}", f"{row['p99']:.0f}", calls_text
        )
    results["overhead_ratio_p50"] = round(results["graphql_p50"] / results["library_p50"], 2)
    results["throughput_ratio"] = round(results["graphql_rps"] / results["library_rps"], 2)
    console.print(table)
    console.print(f"API / library: p50 × {results['overhead_ratio_p50']}, throughput × {results['throughput_ratio']}")
    if out:
        out.write_text(json.dumps(results, indent=2))
    return results


async def _lib(memory: Memory, scope: Scope, q: str) -> int:
    await memory.recall(scope, q, top_k=10)
    return 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _password_of(store: GraphStore) -> str:
    raise SystemExit("set HIPPOGRAPH_NEO4J_URI and HIPPOGRAPH_NEO4J_PASSWORD (the API server needs the password)")


async def _wait_ready(url: str) -> None:
    deadline = time.time() + 180
    async with httpx.AsyncClient() as http:
        while time.time() < deadline:
            try:
                if (await http.get(url + "/readyz", timeout=5)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit("the API server did not become ready")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    asyncio.run(main(args.memories, args.requests, args.concurrency, args.out))
