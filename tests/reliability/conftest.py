"""Fixtures of the reliability suite. Fault tests get a Neo4j of their own (:class:`CrashableNeo4j`,
one per process, shared by the files that kill it: ``ONE_PROCESS`` of ``tests/conftest.py`` hands
them to one process); the rest share the session's server like every other test."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterator

import pytest

from hippograph.store import Neo4jConnection, migrate
from tests.e2e.api.conftest import api_repo, api_server, api_tenant  # noqa: F401 — the API tests' fixtures
from tests.reliability.crashable import CrashableNeo4j

FAULT_RETRY_SECONDS = 1.0
"""How long a connection of the fault tests retries a lost server before the caller sees the error:
each call made while the server is down waits this long and more (the driver's back-off), and
one retry is enough to replace the pooled connections of a server started again."""


@pytest.fixture(scope="session")
def crashable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrashableNeo4j]:
    server = CrashableNeo4j(tmp_path_factory.mktemp("crashable-neo4j"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def crash_conn(crashable: CrashableNeo4j) -> AsyncIterator[Neo4jConnection]:
    """A connection to the crashable server that outlives its crashes (the driver reconnects).
    One per file: a restored backup takes the database back to before the bookmarks a connection
    holds, and a connection that waits for them fails every later transaction."""
    conn = await Neo4jConnection.connect(crashable.uri, password=crashable.password, retry_time=FAULT_RETRY_SECONDS)
    await migrate(conn)
    yield conn
    await conn.close()


@pytest.fixture
def revive(crashable: CrashableNeo4j) -> Iterator[CrashableNeo4j]:
    """The crashable server, started again after the test if the test left it dead."""
    yield crashable
    if not crashable.server.status().running:
        crashable.start()


TALLY: Counter[str] = Counter()
"""What the run tried and found, printed at the end: ``hostile inputs tried``, ``leaks found``, …"""


@pytest.fixture
def tally() -> Counter[str]:
    return TALLY


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TALLY:
        line = ", ".join(f"{name}: {count}" for name, count in sorted(TALLY.items()))
        terminalreporter.write_line(f"reliability tally — {line}")
