"""The typed handles a transaction works through, one per intent: callers never see the driver.

A :class:`ReadTransaction` runs read statements only and has no way to write: the connection
opens it as a managed read transaction, in which the server refuses writes too.
:meth:`Neo4jConnection.write_tx <hippograph.store.connection.Neo4jConnection.write_tx>` hands its
work function a :class:`WriteTransaction`, which also runs write statements (:meth:`~WriteTransaction.run`
for the counts). Each statement's kind is declared in its file
(:class:`~hippograph.store.catalog.TransactionKind`); auto-commit ones run through
:meth:`~hippograph.store.connection.Neo4jConnection.run_autocommit` alone.

Both run catalogued queries only, wrap their parameters once (see :func:`unprinted`) and answer
with typed rows (:class:`Row` models). The work function runs in a managed transaction that the
driver retries on transient faults, so it must be idempotent: it decides only from what it reads
in that transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from neo4j import AsyncManagedTransaction, AsyncResult
from pydantic import BaseModel, ConfigDict

from hippograph.store.catalog import Statement, TransactionKind

R = TypeVar("R", bound="Row")
Record = dict[str, Any]


class Row(BaseModel):
    """Base of typed query rows: one record validated once at the boundary, then immutable.
    Columns the model does not name are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class _Unprinted(list[Any]):
    """A list parameter with a one-line ``repr``. The driver logs every RUN at DEBUG level with
    its parameters formatted eagerly (``" ".join(map(repr, fields))``, whether or not DEBUG is
    on): for a batch of 1,000 memories with 384-d vectors that ``repr`` costs more than packing
    and sending them. It packs exactly as a list does."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<list of {len(self)}>"


def unprinted(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with each list value wrapped so the driver's eager DEBUG ``repr`` is cheap."""
    return {k: _Unprinted(v) if isinstance(v, list) else v for k, v in params.items()}


@dataclass(frozen=True, slots=True)
class WriteCounts:
    """What a statement changed, as the server counted it."""

    nodes_created: int = 0
    nodes_deleted: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    properties_set: int = 0


class ReadTransaction:
    """One managed read transaction, seen through catalogued read statements and typed rows."""

    __slots__ = ("_tx", "statement")

    kind: ClassVar[TransactionKind] = TransactionKind.READ
    runs: ClassVar[frozenset[TransactionKind]] = frozenset({TransactionKind.READ})
    """The kinds of statement this transaction runs."""

    def __init__(self, tx: AsyncManagedTransaction) -> None:
        self._tx = tx
        self.statement: str | None = None
        """The catalog path of the statement run last (the one a fault interrupted)."""

    async def rows_as(self, query: Statement, row: type[R], **params: Any) -> list[R]:
        """Run ``query``; each record validated once as ``row``."""
        return [row.model_validate(r) for r in await self.records(query, params)]

    async def single_as(self, query: Statement, row: type[R], **params: Any) -> R | None:
        """The first row of ``query`` as ``row``, or None when it answers none."""
        rows = await self.rows_as(query, row, **params)
        return rows[0] if rows else None

    async def records(self, query: Statement, params: dict[str, Any], *, plain: bool = False) -> list[Record]:
        """(store-internal) ``query``'s records as dicts. ``plain`` skips the driver's recursive
        value conversion, for rows that hold only maps, lists and scalars."""
        result = await self._start(query, params)
        if plain:
            return [dict(r) async for r in result]
        return [r.data() async for r in result]

    async def _start(self, query: Statement, params: dict[str, Any]) -> AsyncResult:
        check_kind(query, self.runs, f"a {self.kind} transaction")
        self.statement = query.path
        return await self._tx.run(query.text, unprinted(params))


class WriteTransaction(ReadTransaction):
    """One managed write transaction (all or nothing): read and write statements, typed rows and
    what a write changed."""

    __slots__ = ()

    kind = TransactionKind.WRITE
    runs = frozenset({TransactionKind.READ, TransactionKind.WRITE})

    async def run(self, query: Statement, **params: Any) -> WriteCounts:
        """Run ``query`` for its effect; discard its rows and return what it changed."""
        result = await self._start(query, params)
        counters = (await result.consume()).counters
        return WriteCounts(
            nodes_created=counters.nodes_created,
            nodes_deleted=counters.nodes_deleted,
            relationships_created=counters.relationships_created,
            relationships_deleted=counters.relationships_deleted,
            properties_set=counters.properties_set,
        )


def check_kind(query: Statement, kinds: frozenset[TransactionKind], where: str) -> None:
    """TypeError unless ``query`` is declared one of ``kinds`` (its file's first line)."""
    if query.kind not in kinds:
        raise TypeError(f"{query.path} is declared a {query.kind} statement: {where} does not run it")
