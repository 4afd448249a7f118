"""A throwaway embedded Neo4j for a test fixture: started, its (uri, password) given, stopped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hippograph.dbms import LocalNeo4j


@contextmanager
def served(server: LocalNeo4j) -> Iterator[tuple[str, str]]:
    """Start ``server``, give its (uri, password), stop it afterwards (also on failure)."""
    status = server.start(timeout=300)
    assert status.uri is not None
    try:
        yield status.uri, server.password()
    finally:
        server.stop()
