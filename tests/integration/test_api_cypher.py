"""Every Cypher file of the API and the key store passes EXPLAIN on the real server, and its DDL is idempotent."""

from __future__ import annotations

from hippograph.app.access.queries import AccessQuery
from hippograph.app.api.queries import ApiQuery
from hippograph.app.api.repository import ApiRepository
from hippograph.store import Neo4jConnection
from hippograph.store.catalog import catalog_files


async def test_every_api_query_passes_explain(conn: Neo4jConnection) -> None:
    assert {q.path for q in ApiQuery} == {f for f in catalog_files() if f.startswith("api/")}
    assert {q.path for q in AccessQuery} == {f for f in catalog_files() if f.startswith("access/")}
    async with conn.driver.session(database=conn.database) as session:
        for query in (*ApiQuery, *AccessQuery):
            summary = await (await session.run("EXPLAIN " + query.text)).consume()
            assert summary.plan is not None, query


async def test_api_schema_is_idempotent(conn: Neo4jConnection) -> None:
    repo = ApiRepository(conn)
    await repo.apply_schema()
    await repo.apply_schema()
    async with conn.driver.session(database=conn.database) as session:
        names = [r[0] for r in await (await session.run("SHOW CONSTRAINTS YIELD name RETURN name")).values()]
    assert {"api_key_id", "api_key_hash", "token_budget_id"} <= set(names)
