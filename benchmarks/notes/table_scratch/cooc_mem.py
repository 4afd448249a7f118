"""Co-occurrence at 10k under the default 512 MiB of transaction memory (eighth session):
seed consolidation_bench's 10k world on a fresh server, run link_cooccurrences (the catalogued
file or a variant file given on the command line) as the phase does, report edges or the error,
and the statement's peak memory from PROFILE when it succeeds.

    PYTHONPATH=src:. python benchmarks/notes/table_scratch/cooc_mem.py [variant.cypher ...]
"""

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from benchmarks.consolidation_bench import seed
from hippograph.scope import Scope
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection, migrate

CATALOGUED = Path("cypher/consolidation/link_cooccurrences.cypher")


async def main(files: list[Path]) -> None:
    folder = tempfile.mkdtemp(prefix="cooc-")
    server = LocalNeo4j(folder, heap="1g", pagecache_mb=512, stop_with_parent=True)
    status = server.start(timeout=300)
    conn = await Neo4jConnection.connect(str(status.uri), password=server.password())
    try:
        await migrate(conn)
        now = time.time()
        scope = Scope.root("org", "cooc")
        await seed(GraphStore(conn), scope, int(__import__("os").environ.get("N", "10000")), now, Console(quiet=True), tag="m")
        params = {"scope_key": scope.key, "subtree_prefix": scope.subtree_prefix, "now": now, "run_id": "x",
                  "batch": int(__import__("os").environ.get("BATCH", "2000")), "since": -1.0e18, "window": 900.0, "cap": 5, "reach": 2, "weight": 0.3,
                  "layers": ["episodic", "semantic"]}
        for file in files:
            text = file.read_text()
            async with conn.driver.session(database=conn.database) as s:
                await (await s.run("MATCH ()-[r:CO_OCCURRED]->() DELETE r")).consume()
            t = time.perf_counter()
            try:
                async with conn.driver.session(database=conn.database) as s:
                    result = await s.run(text, params)
                    rows = await result.data()
                print(f"{file}: {rows} in {time.perf_counter() - t:.2f} s")
            except Exception as exc:  # noqa: BLE001 — report and go on to the next variant
                print(f"{file}: FAILED after {time.perf_counter() - t:.2f} s: {str(exc)[:300]}")
    finally:
        await conn.close()
        server.stop()


asyncio.run(main([Path(a) for a in sys.argv[1:]]))
