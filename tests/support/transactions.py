"""Ways of running statements that only tests need: a multi-statement read transaction and the
driver's ``execute_query`` (the product reads one statement at a time, through the connection)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import RoutingControl

from hippograph.store import Neo4jConnection, ReadTransaction
from hippograph.store.catalog import Statement
from hippograph.store.connection import Record
from hippograph.store.transaction import unprinted

T = TypeVar("T")


async def read_tx(conn: Neo4jConnection, work: Callable[[ReadTransaction], Awaitable[T]]) -> T:
    """Run ``work`` in one managed read transaction of ``conn``, faults translated as the
    connection translates them."""
    return await conn._guard(conn._session_call(ReadTransaction, work))


async def execute_query(conn: Neo4jConnection, query: Statement, *, write: bool, **params: Any) -> list[Record]:
    """``driver.execute_query`` with explicit routing and the connection's bookmarks."""
    records, _, _ = await conn.driver.execute_query(
        query.text,
        unprinted(params),
        database_=conn.database,
        routing_=RoutingControl.WRITE if write else RoutingControl.READ,
        bookmark_manager_=conn.bookmark_manager(),
    )
    return [r.data() for r in records]
