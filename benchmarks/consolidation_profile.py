"""Where a consolidation run spends its work: every phase statement run under ``PROFILE``.

Seeds one scope with the world of ``consolidation_bench`` (N fresh memories), then runs
``SleepConsolidator.run`` over it through a connection that prefixes every phase query with
``PROFILE`` and keeps the plan's totals: wall ms, database hits, rows, peak memory of the
statement (what counts against ``dbms.memory.transaction.total.max``) and the operators with
the most hits. Database hits do not depend on the machine's load, so they compare runs taken
on a busy machine; the wall time does.

    python -m benchmarks.consolidation_profile --size 10000            # first and second run
    python -m benchmarks.consolidation_profile --size 10000 --top 8    # more operators per query

Server as in ``consolidation_bench`` (``HIPPOGRAPH_NEO4J_URI`` or a throwaway local Neo4j with
the default transaction memory). PROFILE itself adds a little time to every statement.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.consolidation_bench import seed, server
from hippograph.consolidation import SleepConsolidator
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from hippograph.store.catalog import CypherQuery

MARK = "CYPHER replan=skip"


@dataclass
class Profiled:
    query: str
    ms: float
    db_hits: int
    rows: int
    memory: int
    operators: list[tuple[int, str, str]] = field(default_factory=list)


def _walk(plan: dict[str, Any]) -> list[tuple[int, str, str]]:
    ops = [(int(plan.get("dbHits") or 0), str(plan["operatorType"]), str(plan["args"].get("Details", "")))]
    for child in plan.get("children") or []:
        ops += _walk(child)
    return ops


class ProfilingConnection:
    """Passes everything through to ``conn``; phase statements run under PROFILE and are kept."""

    def __init__(self, conn: Neo4jConnection) -> None:
        self._conn = conn
        self.seen: list[Profiled] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    async def _profile(self, query: CypherQuery, params: dict[str, Any]) -> list[dict[str, Any]]:
        text = query.text.replace(MARK, f"PROFILE {MARK}", 1)
        started = time.perf_counter()
        async with self._conn.driver.session(database=self._conn.database) as session:
            result = await session.run(text, params)  # type: ignore[arg-type]
            rows: list[dict[str, Any]] = await result.data()
            summary = await result.consume()
        ms = (time.perf_counter() - started) * 1000.0
        plan = summary.profile or {}
        ops = _walk(plan) if plan else []
        memory = int(plan.get("args", {}).get("GlobalMemory") or 0) if plan else 0
        self.seen.append(
            Profiled(query.value, ms, sum(h for h, _, _ in ops), len(rows), memory, sorted(ops, reverse=True))
        )
        return rows

    async def _maybe(self, method: str, query: CypherQuery, params: dict[str, Any]) -> list[dict[str, Any]]:
        if MARK in query.text:
            return await self._profile(query, params)
        result: list[dict[str, Any]] = await getattr(self._conn, method)(query, **params)
        return result

    async def run_autocommit(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        return await self._maybe("run_autocommit", query, params)

    async def read(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        return await self._maybe("read", query, params)

    async def write(self, query: CypherQuery, **params: Any) -> list[dict[str, Any]]:
        return await self._maybe("write", query, params)


def report(console: Console, title: str, seen: list[Profiled], top: int) -> None:
    table = Table(title=title)
    for col in ("query", "ms", "db hits", "rows", "peak MiB", f"top {top} operators (db hits)"):
        table.add_column(col, justify="left" if col in ("query",) or col.startswith("top") else "right")
    for p in seen:
        ops = "\n".join(f"{h:,} {op} {d[:90]}" for h, op, d in p.operators[:top] if h)
        table.add_row(p.query, f"{p.ms:,.0f}", f"{p.db_hits:,}", f"{p.rows:,}", f"{p.memory / 2**20:,.1f}", ops)
    table.add_row("[b]total[/b]", f"{sum(p.ms for p in seen):,.0f}", f"{sum(p.db_hits for p in seen):,}", "", "", "")
    console.print(table)


async def main(size: int, runs: int, top: int, heap: str, pagecache_mb: int) -> None:
    console = Console(width=200)
    now = time.time()
    async with server(console, heap, pagecache_mb) as (uri, password):
        conn = await Neo4jConnection.connect(uri, password=password)
        await migrate(conn)
        store = GraphStore(conn)
        scope = Scope.root("org", f"prof{size}-{uuid.uuid4().hex[:6]}")
        await seed(store, scope, size, now, console, tag=f"p{uuid.uuid4().hex[:6]}")
        warm = Scope.root("org", f"warm-{uuid.uuid4().hex[:6]}")
        await seed(store, warm, 400, now, console)
        await SleepConsolidator(conn, clock=lambda: now).run(warm)  # plans cached, as in a live server
        await store.delete_subtree(warm)
        profiled = ProfilingConnection(conn)
        sleeper = SleepConsolidator(profiled, clock=lambda: now)  # type: ignore[arg-type]
        try:
            for i in range(runs):
                started = time.perf_counter()
                run = await sleeper.run(scope)
                wall = time.perf_counter() - started
                phases = ", ".join(f"{p.name.value} {p.duration_ms or 0:,.0f}" for p in run.phases_run)
                console.print(f"run #{i + 1}: {wall:.2f} s — {phases}")
                report(console, f"run #{i + 1} over {size:,} memories: every phase statement", profiled.seen, top)
                profiled.seen = []
        finally:
            await store.delete_subtree(scope)
            await conn.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--top", type=int, default=4)
    ap.add_argument("--heap", default="3g", help="the throwaway server's heap (1g is enough at 10k)")
    ap.add_argument("--pagecache-mb", type=int, default=2048)
    a = ap.parse_args()
    asyncio.run(main(a.size, a.runs, a.top, a.heap, a.pagecache_mb))
