"""The connection's error table, and cancellation passing through untouched."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
from neo4j import AsyncGraphDatabase
from neo4j import exceptions as neo4j_errors

from hippograph.errors import ConflictError, StoreError, StoreFailedError, StoreUnavailableError
from hippograph.store.connection import ERROR_TABLE, Neo4jConnection, _translate

pytestmark = pytest.mark.unit
URI = "bolt://127.0.0.1:1"


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (neo4j_errors.AuthError("no"), StoreUnavailableError),
        (neo4j_errors.ServiceUnavailable("down"), StoreUnavailableError),
        (neo4j_errors.SessionExpired("gone"), StoreUnavailableError),
        (ConnectionRefusedError("refused"), StoreUnavailableError),
        (TimeoutError(), StoreUnavailableError),
        (neo4j_errors.ConstraintError("dup"), ConflictError),
        (neo4j_errors.ClientError("bad"), StoreError),
        (neo4j_errors.TransactionError("tx"), StoreError),
        (neo4j_errors.DatabaseError("the disk is full"), StoreFailedError),  # not retryable: needs an operator
    ],
)
def test_driver_errors_translate_by_class(error: Exception, expected: type[Exception]) -> None:
    translated = _translate(error, URI)
    assert type(translated) is expected
    if expected is StoreUnavailableError:
        assert URI in str(translated)


def test_the_most_specific_row_wins_and_unknown_errors_pass_unchanged() -> None:
    kinds = [k if isinstance(k, tuple) else (k,) for k, _ in ERROR_TABLE]
    flat = [k for group in kinds for k in group]
    for i, kind in enumerate(flat):  # no row is shadowed by a broader one above it
        assert not any(issubclass(kind, earlier) for earlier in flat[:i]), kind
    odd = ValueError("not the driver's")
    assert _translate(odd, URI) is odd


async def test_cancelling_a_query_raises_cancelled_not_a_store_error() -> None:
    driver = AsyncGraphDatabase.driver(URI)
    conn = Neo4jConnection(driver, uri=URI, database="neo4j")

    async def slow() -> None:
        await asyncio.sleep(30)

    task = asyncio.create_task(conn._guard(slow()))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await driver.close()


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A local port that accepts connections and never answers the Bolt handshake."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


async def test_cancelling_connect_raises_cancelled_not_a_store_error(silent_server: int) -> None:
    task = asyncio.create_task(Neo4jConnection.connect(f"bolt://127.0.0.1:{silent_server}", password="x", timeout=20))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
