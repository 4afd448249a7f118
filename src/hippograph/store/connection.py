"""The Neo4j connection: one AsyncDriver, managed transactions, error translation.

Reads go through ``execute_read`` (routed to readers), writes through ``execute_write``; both
retry transient faults, so the transaction functions here only run one parameterised query
(idempotent by construction of the Cypher: MERGE-based writes). Several statements in one
transaction go through :meth:`Neo4jConnection.write_tx`, whose work function gets a typed
:class:`~hippograph.store.transaction.WriteTransaction`, never the driver's. Bulk jobs that use
``CALL {…} IN TRANSACTIONS``, and DDL, run auto-commit: :meth:`Neo4jConnection.run_autocommit`.
Each statement declares its kind (:class:`~hippograph.store.catalog.TransactionKind`), and each
way of running one refuses the other kinds with a TypeError: a read statement runs in a read
transaction, where the server refuses writes as well. :meth:`Neo4jConnection.connect` reads the server's version
once (:attr:`Neo4jConnection.capabilities`), which chooses the statements that differ between
Neo4j 2026.x and 5.26 LTS, and refuses a server older than 5.26.

Every session and ``execute_query`` call carries a bookmark manager (:mod:`.causal`), so on a
cluster a read sees the writes made before it through the same connection, or in the same
:func:`~hippograph.store.causal.causal_scope`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

import neo4j
from neo4j import AsyncGraphDatabase, AsyncManagedTransaction
from neo4j import exceptions as neo4j_errors
from neo4j.api import AsyncBookmarkManager

from hippograph.errors import (
    ConflictError,
    HippographError,
    InvalidInputError,
    StoreError,
    StoreFailedError,
    StoreUnavailableError,
)
from hippograph.store import causal
from hippograph.store.catalog import Statement, TransactionKind
from hippograph.store.queries import SchemaQuery
from hippograph.store.server_capabilities import ServerCapabilities
from hippograph.store.transaction import (
    ReadTransaction,
    Record,
    Row,
    WriteTransaction,
    check_kind,
    unprinted,
)

__all__ = [
    "ERROR_TABLE",
    "Neo4jConnection",
    "ReadTransaction",
    "Record",
    "Row",
    "WriteTransaction",
    "connected",
    "unprinted",
]

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R", bound=Row)
H = TypeVar("H", bound=ReadTransaction)
ErrorFactory = Callable[[BaseException, str], HippographError]
AUTOCOMMIT_ATTEMPTS = 4
_WRITE = frozenset({TransactionKind.WRITE})
_AUTOCOMMIT = frozenset({TransactionKind.AUTOCOMMIT})


class Neo4jConnection:
    """Owns an ``AsyncDriver``. Create with :meth:`connect`; close with :meth:`close`."""

    def __init__(
        self,
        driver: neo4j.AsyncDriver,
        *,
        uri: str,
        database: str,
        capabilities: ServerCapabilities | None = None,
    ) -> None:
        self.driver = driver
        self.uri = uri
        self.database = database
        self.capabilities = capabilities or ServerCapabilities()
        """What the server can run (read by :meth:`connect`; a current server otherwise)."""
        self.transient_faults: Counter[str] = Counter()
        """Transient faults met inside managed transactions (which the driver then retried),
        by the server's code: ``Neo.TransientError.Transaction.DeadlockDetected`` counts
        deadlocks between concurrent writers. Each is logged at DEBUG with the statement it
        interrupted and the server's message, which names the locks."""
        self.bookmarks: AsyncBookmarkManager = AsyncGraphDatabase.bookmark_manager()
        """The bookmarks of this connection's work outside any causal scope: every session opened
        outside one carries them, so a read sees every write made before it through this
        connection, on whichever cluster member it runs."""

    def bookmark_manager(self) -> AsyncBookmarkManager:
        """The bookmark manager the next session gets: the current causal scope's for this
        connection, else :attr:`bookmarks`."""
        return causal.bookmark_manager(self, self.bookmarks)

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
        retry_time: float = 30.0,
    ) -> Neo4jConnection:
        """Open a driver, check that the server answers (StoreUnavailableError if not) and read
        its version once (:class:`~hippograph.store.server_capabilities.ServerCapabilities`;
        ConfigurationError for a server older than 5.26).

        ``retry_time`` bounds how long a managed transaction retries transient faults (a lost
        connection, a deadlock, a restarting server) before its StoreError reaches the caller."""
        auth = (user, password) if password is not None else None
        try:
            driver = AsyncGraphDatabase.driver(
                uri,
                auth=auth,
                connection_timeout=timeout,
                max_connection_pool_size=max_pool_size,
                max_transaction_retry_time=retry_time,
                notifications_min_severity="OFF",
            )
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise InvalidInputError("neo4j_uri", f"{uri!r}: {exc}") from None
        conn = cls(driver, uri=uri, database=database)
        try:
            await asyncio.wait_for(driver.verify_connectivity(), timeout=timeout + 5)
            conn.capabilities = await conn._read_capabilities()
        except HippographError:
            await driver.close()
            raise
        except Exception as exc:
            await driver.close()
            raise _translate(exc, uri) from None
        except BaseException:  # cancellation: close, and let it through as it is
            await driver.close()
            raise
        return conn

    async def _read_capabilities(self) -> ServerCapabilities:
        rows = await self.read(SchemaQuery.GET_SERVER_VERSION)
        if not rows:
            return ServerCapabilities()
        return ServerCapabilities.of(str(rows[0]["version"]), str(rows[0]["edition"]))

    async def close(self) -> None:
        await self.driver.close()

    async def read(self, query: Statement, **params: Any) -> list[Record]:
        """Run a read query in a managed read transaction; return records as dicts."""
        return await self._managed(query, params, write=False)

    async def write(self, query: Statement, **params: Any) -> list[Record]:
        """Run a write query in a managed write transaction; return records as dicts."""
        check_kind(query, _WRITE, "write()")
        return await self._managed(query, params, write=True)

    async def read_as(self, query: Statement, row: type[R], **params: Any) -> list[R]:
        """:meth:`read`, each record validated once as ``row``."""
        return [row.model_validate(r) for r in await self.read(query, **params)]

    async def read_plain(self, query: Statement, **params: Any) -> list[Record]:
        """:meth:`read` for a query whose rows hold only maps, lists and scalars (no nodes,
        relationships or paths): skips the driver's recursive conversion of every value, which
        costs more than the round trip for a large nested row."""
        return await self._managed(query, params, write=False, plain=True)

    async def read_plain_as(self, query: Statement, row: type[R], **params: Any) -> list[R]:
        """:meth:`read_plain`, each record validated once as ``row``."""
        return [row.model_validate(r) for r in await self.read_plain(query, **params)]

    async def write_as(self, query: Statement, row: type[R], **params: Any) -> list[R]:
        """:meth:`write`, each record validated once as ``row``."""
        return [row.model_validate(r) for r in await self.write(query, **params)]

    async def write_tx(self, work: Callable[[WriteTransaction], Awaitable[T]]) -> T:
        """Run several statements in one managed write transaction (all or nothing). ``work``
        may run more than once (transient faults are retried), so it must be idempotent."""
        return await self._guard(self._session_call(WriteTransaction, work))

    async def run_autocommit(self, query: Statement, **params: Any) -> list[Record]:
        """Auto-commit run, for ``CALL {…} IN TRANSACTIONS`` batch jobs and DDL.

        The driver retries no auto-commit statement, so a retryable failure (a lost connection,
        a pooled one that died with a restarted server; a deadlock with a concurrent writer) is
        retried here a few times, after a jittered pause; the statements that run this way are
        idempotent batch jobs and ``IF NOT EXISTS`` DDL, so running one again is safe."""
        check_kind(query, _AUTOCOMMIT, "run_autocommit()")

        async def go() -> list[Record]:
            async with self.driver.session(database=self.database, bookmark_manager=self.bookmark_manager()) as session:
                result = await session.run(query.text, unprinted(params))
                return await result.data()

        for attempt in range(1, AUTOCOMMIT_ATTEMPTS + 1):
            try:
                return await self._guard(go())
            except StoreError as exc:
                if not exc.retryable or attempt == AUTOCOMMIT_ATTEMPTS:
                    raise
                await asyncio.sleep(0.2 * attempt * (1 + random.random()))
        raise AssertionError("unreachable")

    async def _managed(
        self, query: Statement, params: dict[str, Any], *, write: bool, plain: bool = False
    ) -> list[Record]:
        async def work(tx: ReadTransaction) -> list[Record]:
            return await tx.records(query, params, plain=plain)

        return await self._guard(self._session_call(WriteTransaction if write else ReadTransaction, work))

    async def _session_call(self, handle_type: type[H], work: Callable[[H], Awaitable[T]]) -> T:
        """``work`` in a managed transaction of ``handle_type``'s kind, through such a handle."""

        async def managed(tx: AsyncManagedTransaction) -> T:
            handle = handle_type(tx)
            try:
                return await work(handle)
            except neo4j_errors.TransientError as exc:
                code = exc.code or type(exc).__name__
                self.transient_faults[code] += 1
                log.debug("transient fault %s in %s (retried): %s", code, handle.statement, exc.message)
                raise

        # execute_read routes to a reader, execute_write to the writer (the session's access mode
        # plays no part in managed transactions)
        async with self.driver.session(database=self.database, bookmark_manager=self.bookmark_manager()) as session:
            if handle_type.kind is TransactionKind.WRITE:
                return await session.execute_write(managed)
            return await session.execute_read(managed)

    async def _guard(self, aw: Awaitable[T]) -> T:
        try:
            return await aw
        except HippographError:
            raise
        except Exception as exc:  # never BaseException: cancellation is not a store fault
            raise _translate(exc, self.uri) from exc


@asynccontextmanager
async def connected(uri: str, **kwargs: Any) -> AsyncIterator[Neo4jConnection]:
    """``async with connected(uri, password=…) as conn:`` — closes the driver on exit."""
    conn = await Neo4jConnection.connect(uri, **kwargs)
    try:
        yield conn
    finally:
        await conn.close()


def _unavailable(reason: str) -> Callable[[BaseException, str], HippographError]:
    return lambda exc, uri: StoreUnavailableError(uri, reason or type(exc).__name__)


def _conflict(exc: BaseException, uri: str) -> HippographError:
    return ConflictError(f"constraint violated ({getattr(exc, 'code', None)})")


def _neo4j_error(exc: BaseException, uri: str) -> HippographError:
    err = cast(neo4j_errors.Neo4jError, exc)  # the table only sends Neo4jErrors here
    log.warning("neo4j error %s", err.code)
    return StoreError(f"Neo4j error {err.code}: {err.message}", retryable=err.is_retryable())


def _database_failed(exc: BaseException, uri: str) -> HippographError:
    err = cast(neo4j_errors.DatabaseError, exc)
    log.error("neo4j failed: %s", err.code)
    return StoreFailedError(err.code or "Neo.DatabaseError", (err.message or "").splitlines()[0][:200])


def _not_unicode(exc: BaseException, uri: str) -> HippographError:
    # the driver cannot encode a parameter (a lone surrogate): the caller's text, not a fault
    return InvalidInputError("text", "is not valid Unicode (a lone surrogate); nothing was written")


def _driver_error(exc: BaseException, uri: str) -> HippographError:
    return StoreError(f"Neo4j driver error: {type(exc).__name__}: {exc}", retryable=False)


ERROR_TABLE: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], ErrorFactory], ...] = (
    # most specific first: AuthError and ConstraintError are Neo4jErrors too
    (neo4j_errors.AuthError, _unavailable("authentication failed (check the user and password)")),
    (TimeoutError, _unavailable("timed out")),  # before OSError, its base (asyncio's is the same class)
    ((neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError), _unavailable("")),
    (neo4j_errors.ConstraintError, _conflict),
    (neo4j_errors.DatabaseError, _database_failed),  # the server broke inside (a full disk): not the query
    (neo4j_errors.Neo4jError, _neo4j_error),
    (neo4j_errors.DriverError, _driver_error),
    (UnicodeEncodeError, _not_unicode),
)
"""How driver errors become hippograph errors: by class (and the server's code), never by text.
Only ``Exception``s are looked up; cancellation and other ``BaseException``s pass untouched."""


def _translate(exc: Exception, uri: str) -> Exception:
    """The hippograph error for a driver error (the first matching row of ERROR_TABLE), or
    ``exc`` itself when no row matches."""
    for kinds, factory in ERROR_TABLE:
        if isinstance(exc, kinds):
            return factory(exc, uri)
    return exc
