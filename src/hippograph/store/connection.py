"""The Neo4j connection: one AsyncDriver, managed transactions, error translation.

Reads go through ``execute_read`` (routed to readers), writes through ``execute_write``; both
retry transient faults, so the transaction functions here only run one parameterised query
(idempotent by construction of the Cypher: MERGE-based writes). Bulk jobs that use
``CALL {…} IN TRANSACTIONS`` must run auto-commit: :meth:`Neo4jConnection.run_autocommit`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import AsyncGraphDatabase, AsyncManagedTransaction, RoutingControl
from neo4j import exceptions as neo4j_errors

from hippograph.errors import (
    ConflictError,
    InvalidInputError,
    StoreError,
    StoreUnavailableError,
)
from hippograph.store.catalog import CypherQuery

log = logging.getLogger(__name__)
T = TypeVar("T")
Record = dict[str, Any]


class Neo4jConnection:
    """Owns an ``AsyncDriver``. Create with :meth:`connect`; close with :meth:`close`."""

    def __init__(self, driver: neo4j.AsyncDriver, *, uri: str, database: str) -> None:
        self.driver = driver
        self.uri = uri
        self.database = database

    @classmethod
    async def connect(
        cls,
        uri: str,
        *,
        user: str = "neo4j",
        password: str | None = None,
        database: str = "neo4j",
        timeout: float = 10.0,
        max_pool_size: int = 50,
    ) -> Neo4jConnection:
        """Open a driver and check that the server answers; raise StoreUnavailableError if not."""
        auth = (user, password) if password is not None else None
        try:
            driver = AsyncGraphDatabase.driver(
                uri,
                auth=auth,
                connection_timeout=timeout,
                max_connection_pool_size=max_pool_size,
                notifications_min_severity="OFF",
            )
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise InvalidInputError("neo4j_uri", f"{uri!r}: {exc}") from None
        conn = cls(driver, uri=uri, database=database)
        try:
            await asyncio.wait_for(driver.verify_connectivity(), timeout=timeout + 5)
        except BaseException as exc:
            await driver.close()
            raise _translate(exc, uri) from None
        return conn

    async def close(self) -> None:
        await self.driver.close()

    async def read(self, query: CypherQuery, **params: Any) -> list[Record]:
        """Run a read query in a managed read transaction; return records as dicts."""
        return await self._managed(query, params, write=False)

    async def write(self, query: CypherQuery, **params: Any) -> list[Record]:
        """Run a write query in a managed write transaction; return records as dicts."""
        return await self._managed(query, params, write=True)

    async def read_tx(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run several reads in one managed read transaction."""
        return await self._guard(self._session_call(work, write=False))

    async def write_tx(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run several statements in one managed write transaction (all or nothing)."""
        return await self._guard(self._session_call(work, write=True))

    async def run_autocommit(self, query: CypherQuery, **params: Any) -> list[Record]:
        """Auto-commit run, for ``CALL {…} IN TRANSACTIONS`` batch jobs and DDL."""

        async def go() -> list[Record]:
            async with self.driver.session(database=self.database) as session:
                result = await session.run(query.text, params)
                return await result.data()

        return await self._guard(go())

    async def query(self, query: CypherQuery, *, write: bool, **params: Any) -> list[Record]:
        """``driver.execute_query`` with explicit routing: safe for concurrent callers."""

        async def go() -> list[Record]:
            records, _, _ = await self.driver.execute_query(
                query.text,
                params,
                database_=self.database,
                routing_=RoutingControl.WRITE if write else RoutingControl.READ,
            )
            return [r.data() for r in records]

        return await self._guard(go())

    async def _managed(self, query: CypherQuery, params: dict[str, Any], *, write: bool) -> list[Record]:
        text = query.text

        async def work(tx: AsyncManagedTransaction) -> list[Record]:
            result = await tx.run(text, params)
            return [r.data() async for r in result]

        return await self._guard(self._session_call(work, write=write))

    async def _session_call(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]], *, write: bool) -> T:
        async with self.driver.session(database=self.database) as session:
            if write:
                return await session.execute_write(work)
            return await session.execute_read(work)

    async def _guard(self, aw: Awaitable[T]) -> T:
        try:
            return await aw
        except (StoreError, InvalidInputError, ConflictError):
            raise
        except Exception as exc:
            raise _translate(exc, self.uri) from exc


@asynccontextmanager
async def connected(uri: str, **kwargs: Any) -> AsyncIterator[Neo4jConnection]:
    """``async with connected(uri, password=…) as conn:`` — closes the driver on exit."""
    conn = await Neo4jConnection.connect(uri, **kwargs)
    try:
        yield conn
    finally:
        await conn.close()


def _translate(exc: BaseException, uri: str) -> Exception:
    """Map driver errors to the hippograph hierarchy by error class and code, never by text."""
    if isinstance(exc, neo4j_errors.AuthError):
        return StoreUnavailableError(uri, "authentication failed (check the user and password)")
    if isinstance(exc, (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError)):
        return StoreUnavailableError(uri, type(exc).__name__)
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return StoreUnavailableError(uri, "timed out")
    if isinstance(exc, neo4j_errors.ConstraintError):
        return ConflictError(f"constraint violated ({exc.code})")
    if isinstance(exc, neo4j_errors.Neo4jError):
        retryable = exc.is_retryable()
        log.warning("neo4j error %s", exc.code)
        return StoreError(f"Neo4j error {exc.code}: {exc.message}", retryable=retryable)
    if isinstance(exc, neo4j_errors.DriverError):
        return StoreError(f"Neo4j driver error: {type(exc).__name__}: {exc}", retryable=False)
    return exc if isinstance(exc, Exception) else StoreError(repr(exc))
