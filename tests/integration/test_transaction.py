"""The typed transaction handle: rows as models, counts of what a statement changed, all or
nothing, and store faults translated like single statements."""

from __future__ import annotations

import pytest

from hippograph.errors import StoreError
from hippograph.models import now
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, ReadTransaction, Row, WriteCounts, WriteTransaction
from hippograph.store.queries import MemoryQuery as Q
from tests.support.transactions import read_tx


class _Key(Row):
    key: str


class _Fact(Row):
    m: dict[str, object]


async def _take(tx: WriteTransaction, scope: Scope, key: str) -> tuple[WriteCounts, _Key | None]:
    counts = await tx.run(Q.UPSERT_FACT_LOCK, scope_key=scope.key, key=key, now=now())
    row = await tx.single_as(Q.UPSERT_FACT_LOCK, _Key, scope_key=scope.key, key=key, now=now())
    return counts, row


async def test_run_counts_and_single_as_reads_a_typed_row(store: GraphStore, tenant: Scope) -> None:
    await store.ensure_scope(tenant)
    counts, row = await store.conn.write_tx(lambda tx: _take(tx, tenant, "sam.city"))
    assert counts.nodes_created == 1 and counts.relationships_created == 1
    assert row == _Key(key="sam.city")
    again, _ = await store.conn.write_tx(lambda tx: _take(tx, tenant, "sam.city"))
    assert again.nodes_created == 0 and again.relationships_created == 0 and again.properties_set >= 1


async def test_single_as_is_none_and_rows_as_empty_without_rows(conn: Neo4jConnection, tenant: Scope) -> None:
    async def work(tx: ReadTransaction) -> tuple[_Fact | None, list[_Fact]]:
        params = {"scope_key": tenant.key, "key": "nobody.home"}
        return await tx.single_as(Q.GET_CURRENT_FACT, _Fact, **params), await tx.rows_as(
            Q.GET_CURRENT_FACT, _Fact, **params
        )

    assert await read_tx(conn, work) == (None, [])


async def test_a_failing_work_function_writes_nothing(store: GraphStore, tenant: Scope) -> None:
    await store.ensure_scope(tenant)

    class Stop(Exception):
        pass

    async def work(tx: WriteTransaction) -> None:
        await tx.run(Q.UPSERT_FACT_LOCK, scope_key=tenant.key, key="rolled.back", now=now())
        raise Stop

    with pytest.raises(Stop):
        await store.conn.write_tx(work)
    counts, _ = await store.conn.write_tx(lambda tx: _take(tx, tenant, "rolled.back"))
    assert counts.nodes_created == 1  # the first lock was never committed


async def test_a_statement_the_server_refuses_is_a_store_error(conn: Neo4jConnection, tenant: Scope) -> None:
    async def work(tx: ReadTransaction) -> None:  # LIMIT -1: the server refuses the parameter
        await tx.rows_as(
            Q.SEARCH_VECTOR_EXACT, _Fact, visible=[tenant.key], layers=["semantic"], k=-1, vector=[1.0, 0.0]
        )

    with pytest.raises(StoreError):
        await read_tx(conn, work)
