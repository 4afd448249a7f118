"""The Neo4j a test session talks to: the one ``HIPPOGRAPH_NEO4J_URI`` names, else a throwaway
embedded Neo4j (built once, started on a free port in a temporary folder, stopped at the end)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from hippograph.dbms import LocalNeo4j

__all__ = ["Neo4jTarget", "served", "session_neo4j"]


@dataclass(frozen=True)
class Neo4jTarget:
    """Where the tests' Neo4j answers, and how to sign in."""

    uri: str
    password: str = field(repr=False)
    user: str = "neo4j"
    database: str = "neo4j"
    started: bool = False
    """True when this session started the server (it is stopped at the end)."""


@contextmanager
def served(server: LocalNeo4j, *, timeout: float = 300) -> Iterator[tuple[str, str]]:
    """Start ``server``, give its (uri, password), stop it afterwards (also on failure)."""
    status = server.start(timeout=timeout)
    if status.uri is None:
        server.stop()
        raise RuntimeError(f"the local Neo4j in {server.data_dir} started without a Bolt address")
    try:
        yield status.uri, server.password()
    finally:
        server.stop()


@contextmanager
def session_neo4j(folder: Path, env: Mapping[str, str]) -> Iterator[Neo4jTarget]:
    """The Neo4j of a test session: ``HIPPOGRAPH_NEO4J_URI`` (with ``HIPPOGRAPH_NEO4J_USER``,
    ``HIPPOGRAPH_NEO4J_PASSWORD``, ``HIPPOGRAPH_NEO4J_DATABASE``) when set, used as it is;
    otherwise a local embedded Neo4j with its data in ``folder``, stopped on exit (and with
    the process that started it, should that die first) — the release
    ``HIPPOGRAPH_TEST_NEO4J_VERSION`` names (``5.26.31``: the 5.26 LTS line), else the
    launcher's 2026.x."""
    uri = env.get("HIPPOGRAPH_NEO4J_URI")
    if uri:
        yield Neo4jTarget(
            uri=uri,
            password=env.get("HIPPOGRAPH_NEO4J_PASSWORD", ""),
            user=env.get("HIPPOGRAPH_NEO4J_USER") or "neo4j",
            database=env.get("HIPPOGRAPH_NEO4J_DATABASE") or "neo4j",
        )
        return
    server = LocalNeo4j(
        folder,
        heap="1g",
        pagecache_mb=256,
        stop_with_parent=True,
        neo4j_version=env.get("HIPPOGRAPH_TEST_NEO4J_VERSION") or None,
    )
    with served(server) as (local_uri, password):
        yield Neo4jTarget(uri=local_uri, password=password, started=True)
