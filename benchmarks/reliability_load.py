"""Sustained mixed load on the API over loopback: for a bounded time, N clients each loop over
a mix of recall, remember, agent turns (the offline scripted model) and dashboard queries
(memory listings, scope stats, consolidation runs), on a few users of one org. Reported:
throughput, p50 / p95 / p99 per operation, the error rate, the API process's RSS sampled
every second (the curve, and its growth between the first and the last quarter of the run),
and the transient faults the API's store met and retried (``deadlocks``: the server detected a
deadlock between concurrent writers; no caller saw it, but each one cost a retry), read from
the API's ``/metrics`` at the end.

    python -m benchmarks.reliability_load --seconds 300 --clients 50 --out load.json

The load itself (``drive``) lives in ``tests/support/load.py``: the reliability suite's short
variant runs the same mix for 20 seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

from tests.support.load import DEADLOCK, drive


async def store_faults(url: str) -> dict[str, int]:
    """The API's ``hippograph_store_transient_faults_total`` by code, from its ``/metrics``."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        text = (await http.get("/metrics")).text
    return {
        sample.labels["code"]: int(sample.value)
        for family in text_string_to_metric_families(text)
        if family.name == "hippograph_store_transient_faults"
        for sample in family.samples
        if sample.name.endswith("_total")
    }


async def main(seconds: float, clients: int, users: int, out: Path | None) -> dict[str, Any]:
    import os
    import tempfile

    import psutil
    from rich.console import Console

    from benchmarks.api_bench import _free_port, _wait_ready, start_server
    from hippograph.app.access.keys import Role, create_key
    from hippograph.app.api.repository import ApiRepository
    from hippograph.dbms import LocalNeo4j
    from hippograph.scope import Scope
    from hippograph.store import GraphStore, Neo4jConnection, migrate

    console = Console()
    local = None
    uri, password = os.environ.get("HIPPOGRAPH_NEO4J_URI"), os.environ.get("HIPPOGRAPH_NEO4J_PASSWORD", "")
    if not uri:
        local = LocalNeo4j(
            tempfile.mkdtemp(prefix="hippograph-load-"), heap="2g", pagecache_mb=512, stop_with_parent=True
        )
        uri, password = local.start(timeout=300).uri, local.password()
    assert uri is not None
    conn = await Neo4jConnection.connect(uri, password=password)
    org = Scope.root("org", f"load-{uuid.uuid4().hex[:6]}")
    try:
        await migrate(conn)
        repo = ApiRepository(conn)
        await repo.apply_schema()
        _, token = await create_key(repo.keys, org, Role.WRITER, name="load")
        port = _free_port()
        server = start_server(uri, password, port, tempfile.mkdtemp(prefix="hippograph-load-api-"))
        process = psutil.Process(server.pid)
        try:
            url = f"http://127.0.0.1:{port}"
            await _wait_ready(url)
            scopes = [org.child("user", f"u{i}").key for i in range(users)]
            with console.status(f"{clients} clients for {seconds:.0f} s"):
                report = await drive(
                    url, token, scopes, seconds=seconds, clients=clients, rss=lambda: process.memory_info().rss
                )
            faults = await store_faults(url)
        finally:
            server.terminate()
            server.wait(timeout=60)
        await GraphStore(conn).delete_subtree(org)
    finally:
        await conn.close()
        if local is not None:
            local.stop()
    result = report.summary()
    result["deadlocks"] = faults.get(DEADLOCK, 0)
    result["transient_faults"] = faults
    console.print_json(json.dumps({k: v for k, v in result.items() if k != "rss_curve_mb"}))
    curve = result["rss_curve_mb"]
    console.print("RSS curve (s, MiB):", curve[:: max(1, len(curve) // 20)])
    if out:
        out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--users", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.clients, args.users, args.out))
