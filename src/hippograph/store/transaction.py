"""The typed handle a multi-statement transaction works through: callers never see the driver.

:meth:`Neo4jConnection.read_tx <hippograph.store.connection.Neo4jConnection.read_tx>` and
:meth:`~hippograph.store.connection.Neo4jConnection.write_tx` hand their work function a
:class:`Transaction`. It runs catalogued queries only, wraps their parameters once (see
:func:`unprinted`) and answers with typed rows (:class:`Row` models) or the write's counts. The
work function runs in a managed transaction that the driver retries on transient faults, so it
must be idempotent: it decides only from what it reads in that transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from neo4j import AsyncManagedTransaction
from pydantic import BaseModel, ConfigDict

from hippograph.store.catalog import Statement

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


class Transaction:
    """One managed transaction, seen through catalogued queries and typed rows."""

    __slots__ = ("_tx", "statement")

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

    async def run(self, query: Statement, **params: Any) -> WriteCounts:
        """Run ``query`` for its effect; discard its rows and return what it changed."""
        self.statement = query.path
        result = await self._tx.run(query.text, unprinted(params))
        counters = (await result.consume()).counters
        return WriteCounts(
            nodes_created=counters.nodes_created,
            nodes_deleted=counters.nodes_deleted,
            relationships_created=counters.relationships_created,
            relationships_deleted=counters.relationships_deleted,
            properties_set=counters.properties_set,
        )

    async def records(self, query: Statement, params: dict[str, Any], *, plain: bool = False) -> list[Record]:
        """(store-internal) ``query``'s records as dicts. ``plain`` skips the driver's recursive
        value conversion, for rows that hold only maps, lists and scalars."""
        self.statement = query.path
        result = await self._tx.run(query.text, unprinted(params))
        if plain:
            return [dict(r) async for r in result]
        return [r.data() async for r in result]
