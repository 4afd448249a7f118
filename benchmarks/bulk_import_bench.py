"""Bulk import speed: ``hippograph import --bulk`` of a synthetic conversation into a fresh
local Neo4j, per phase (embedding, CSV writing, ``neo4j-admin`` import, index build), and
memories per second without embedding.

    python -m benchmarks.bulk_import_bench --turns 100000

Turns are two speakers over sessions of 40 turns with a 5,000-word vocabulary; embeddings come
from the hashing embedder (the embedding phase is reported apart and left out of the rate, as
with vectors taken from an export). The server runs in a temporary folder and is stopped at
the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any


def turns(n: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    words = [f"w{i:04d}" for i in range(5000)]
    return [
        {
            "turn_id": f"D{i // 40}:{i % 40}",
            "session_id": f"session {i // 40}",
            "speaker": ("Caroline", "Melanie")[i % 2],
            "text": " ".join(rng.choices(words, k=rng.randint(8, 30))),
            "occurred_at": 1_700_000_000.0 + 600 * i,
        }
        for i in range(n)
    ]


async def run(n: int, heap: str) -> dict[str, Any]:
    from hippograph.app.api.bulk import bulk_import, read_input
    from hippograph.dbms import LocalNeo4j
    from hippograph.embeddings import HashingEmbeddings
    from hippograph.scope import Scope
    from hippograph.store import Neo4jConnection

    folder = Path(tempfile.mkdtemp(prefix="hippograph-bulk-"))
    server = LocalNeo4j(folder / "neo4j", heap=heap, pagecache_mb=512, stop_with_parent=True)
    try:
        file = folder / "turns.jsonl"
        file.write_text("".join(json.dumps(t) + "\n" for t in turns(n)), encoding="utf-8")
        scope = Scope.root("org", "bench").child("conversation", "c1")
        t0 = time.perf_counter()
        data = read_input(file, scope)
        parse = time.perf_counter() - t0

        async def connect(uri: str, password: str) -> Neo4jConnection:
            return await Neo4jConnection.connect(uri, password=password)

        server.start(timeout=300)  # started before the clock, as a user's running server
        report = await bulk_import(server, data, HashingEmbeddings(), connect=connect)
        return {
            "turns": n,
            "parse_seconds": round(parse, 2),
            **report.seconds,
            "memories_per_second_without_embedding": round(report.per_second),
        }
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--heap", default="2g", help="Neo4j heap while the indexes are built")
    print(json.dumps(asyncio.run(run(ap.parse_args().turns, ap.parse_args().heap))))


if __name__ == "__main__":
    main()
