"""Benchmarks talk to HIPPOGRAPH_NEO4J_URI when set, else to a fresh local Neo4j they start
(and stop) themselves on 127.0.0.1. Also: a sampler of the Neo4j process's peak RSS."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field

import psutil

from hippograph.store import GraphStore, Neo4jConnection, migrate


@dataclass
class RssSampler:
    pid: int | None
    peak: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> RssSampler:
        if self.pid:
            threading.Thread(target=self._loop, daemon=True).start()
        return self

    def _loop(self) -> None:
        proc = psutil.Process(self.pid)
        while not self._stop.wait(0.2):
            try:
                self.peak = max(self.peak, proc.memory_info().rss)
            except psutil.Error:
                return

    def __exit__(self, *exc: object) -> None:
        self._stop.set()


@dataclass(frozen=True)
class BenchNeo4j:
    uri: str
    password: str | None
    pid: int | None
    """The Java process's id when the benchmark started the server itself, else None."""


@contextmanager
def bench_neo4j(heap: str = "2g", pagecache_mb: int = 1024) -> Iterator[BenchNeo4j]:
    """The server of HIPPOGRAPH_NEO4J_URI (and _PASSWORD) when set, else a fresh local one, stopped after."""
    uri = os.environ.get("HIPPOGRAPH_NEO4J_URI")
    if uri:
        yield BenchNeo4j(uri, os.environ.get("HIPPOGRAPH_NEO4J_PASSWORD"), None)
        return
    # imported here: the A/B harnesses import this module beside older trees, whose
    # local-server code lived in another package
    from hippograph.dbms import LocalNeo4j

    folder = tempfile.mkdtemp(prefix="hippograph-bench-")
    server = LocalNeo4j(folder, heap=heap, pagecache_mb=pagecache_mb, stop_with_parent=True)
    status = server.start(timeout=300)
    assert status.uri is not None
    try:
        yield BenchNeo4j(status.uri, server.password(), status.pid)
    finally:
        server.stop()


@asynccontextmanager
async def bench_store(heap: str = "2g", pagecache_mb: int = 1024) -> AsyncIterator[tuple[GraphStore, int | None]]:
    with bench_neo4j(heap, pagecache_mb) as neo4j:
        conn = await Neo4jConnection.connect(neo4j.uri, password=neo4j.password)
        try:
            await migrate(conn)
            yield GraphStore(conn), neo4j.pid
        finally:
            await conn.close()
