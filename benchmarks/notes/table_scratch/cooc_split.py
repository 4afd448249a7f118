"""Co-occurrence's read and write timed apart at 10k (eighth session): seed consolidation_bench's
world into fresh scopes of one server, run the phase's read, then the write (the catalogued file
or ``--write FILE`` with a read ``--read FILE``), three scopes each, and print the times.

    PYTHONPATH=src:. python benchmarks/notes/table_scratch/cooc_split.py [--read R --write W]
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from rich.console import Console

from benchmarks.consolidation_bench import seed
from hippograph.scope import Scope
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection, migrate

ap = argparse.ArgumentParser()
ap.add_argument("--read", type=Path, default=Path("cypher/consolidation/get_cooccurrence_pairs.cypher"))
ap.add_argument("--write", type=Path, default=Path("cypher/consolidation/link_cooccurrences.cypher"))
ap.add_argument("--scopes", type=int, default=3)
a = ap.parse_args()


async def main() -> None:
    server = LocalNeo4j(tempfile.mkdtemp(prefix="cooc-"), heap="1g", pagecache_mb=512, stop_with_parent=True)
    status = server.start(timeout=300)
    conn = await Neo4jConnection.connect(str(status.uri), password=server.password())
    await migrate(conn)
    now = time.time()
    for i in range(a.scopes):
        scope = Scope.root("org", f"cooc{i}")
        await seed(GraphStore(conn), scope, 10_000, now, Console(quiet=True), tag=f"m{i}")
        params = {"scope_key": scope.key, "subtree_prefix": scope.subtree_prefix, "now": now, "run_id": "x",
                  "batch": 2000, "since": -1.0e18, "window": 900.0, "cap": 5, "reach": 2, "weight": 0.3,
                  "layers": ["episodic", "semantic"]}
        async with conn.driver.session(database=conn.database) as s:
            t = time.perf_counter()
            pairs = (await (await s.run(a.read.read_text(), params)).data())[0]["pairs"]
            t_read = time.perf_counter() - t
            t = time.perf_counter()
            rows = await (await s.run(a.write.read_text(), {**params, "pairs": pairs})).data()
            t_write = time.perf_counter() - t
        print(f"scope {i}: read {t_read * 1000:.0f} ms ({len(pairs)} pairs), write {t_write * 1000:.0f} ms {rows}")
    await conn.close()
    server.stop()


asyncio.run(main())
