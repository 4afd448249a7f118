"""Fixtures of the reliability suite (issue 13). Fault tests get a Neo4j of their own per module
(:class:`CrashableNeo4j`); the rest share the session's server like every other test."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterator

import pytest

from hippograph.store import Neo4jConnection, migrate
from tests.e2e.api.conftest import api_repo, api_server, api_tenant  # noqa: F401 — the API tests' fixtures
from tests.reliability.crashable import CrashableNeo4j

FAULT_RETRY_SECONDS = 3.0
"""How long a connection of the fault tests retries a lost server before the caller sees the error."""


@pytest.fixture(scope="module")
def crashable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrashableNeo4j]:
    server = CrashableNeo4j(tmp_path_factory.mktemp("crashable-neo4j"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def crash_conn(crashable: CrashableNeo4j) -> AsyncIterator[Neo4jConnection]:
    """A connection to the crashable server that outlives its crashes (the driver reconnects)."""
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
