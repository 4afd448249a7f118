from __future__ import annotations

import uuid

import pytest

from hippograph.errors import StoreError, StoreUnavailableError
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import SCHEMA_VERSION, GraphStore, Neo4jConnection, TransactionKind, migrate, schema_version
from hippograph.store.catalog import Statement
from hippograph.store.queries import MemoryQuery
from tests.support.catalog import all_queries, rendered_statements, sample_params


async def test_every_query_file_passes_explain(conn: Neo4jConnection) -> None:
    """Every statement this server runs (on 5.26 the Cypher 25 ones give way to their _lts forms);
    one declared a write plans to write (else it belongs in a read transaction)."""
    async with conn.driver.session(database=conn.database) as session:
        for query in all_queries():
            if not conn.capabilities.can_run(query):
                continue
            result = await session.run("EXPLAIN " + query.text)
            summary = await result.consume()
            assert summary.plan is not None, query
            if query.kind is TransactionKind.WRITE:
                assert summary.query_type in ("w", "rw"), query


def _reads_here(conn: Neo4jConnection) -> list[Statement]:
    """Every read statement of the catalog and every one rendered from fragments, as this server
    runs them (the _lts forms only on 5.26, whose vector index they name)."""
    current = conn.capabilities.supports_search_clause
    catalog = [
        q
        for q in all_queries()
        if q.kind is TransactionKind.READ and conn.capabilities.can_run(q) and not (current and q.name.endswith("_LTS"))
    ]
    return [*catalog, *rendered_statements(lts=not current).values()]


async def test_every_read_statement_runs_in_a_read_transaction(conn: Neo4jConnection) -> None:
    """The server refuses any write in a read transaction (Neo.ClientError.Statement.AccessMode),
    before it looks at the parameters or the data: a statement declared a read that writes fails
    here."""
    reads = _reads_here(conn)
    assert len(reads) > 80
    assert any(q.path.startswith("retrieval/recall@") for q in reads)
    for query in reads:
        try:
            await conn.read(query, **sample_params(query, vector_index=conn.capabilities.vector_index))
        except StoreError as exc:  # a sample value the statement cannot take; never a write
            assert "AccessMode" not in str(exc), query.path


async def test_every_statement_rendered_from_fragments_passes_explain(conn: Neo4jConnection) -> None:
    """The recall statement and each fragment run alone, as this server gets them: each one a
    named entry of the catalog (a re-embedding's slot renders from these, see test_embedder_choice)."""
    lts = not conn.capabilities.supports_search_clause
    rendered = rendered_statements(lts=lts)
    assert {"retrieval/recall@lts" if lts else "retrieval/recall@2026", *(p for p in rendered if "/hop@4" in p)} <= {
        *rendered
    }
    async with conn.driver.session(database=conn.database) as session:
        for name, query in rendered.items():
            summary = await (await session.run("EXPLAIN " + query.text)).consume()
            assert summary.plan is not None, name


async def _schema_snapshot(conn: Neo4jConnection) -> tuple[list[tuple[str, str]], list[str]]:
    async with conn.driver.session(database=conn.database) as session:
        idx = await (await session.run("SHOW INDEXES YIELD name, state RETURN name, state ORDER BY name")).values()
        cons = await (await session.run("SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name")).values()
    return [tuple(r) for r in idx], [r[0] for r in cons]


async def test_migrations_are_idempotent(conn: Neo4jConnection) -> None:
    before = await _schema_snapshot(conn)
    assert await migrate(conn) == SCHEMA_VERSION
    assert await migrate(conn) == SCHEMA_VERSION
    assert await _schema_snapshot(conn) == before
    assert await schema_version(conn) == SCHEMA_VERSION
    names = {name for name, state in before[0]}
    assert {conn.capabilities.vector_index, "memory_text", "memory_scope_key"} <= names
    assert all(state == "ONLINE" for _, state in before[0])


async def test_a_database_made_before_step_3_loses_the_unused_range_indexes(conn: Neo4jConnection) -> None:
    async with conn.driver.session(database=conn.database) as session:
        for ddl in (
            "CREATE INDEX memory_created_at IF NOT EXISTS FOR (m:Memory) ON (m.created_at)",
            "CREATE INDEX memory_occurred_at IF NOT EXISTS FOR (m:Memory) ON (m.occurred_at)",
            "CREATE INDEX memory_layer IF NOT EXISTS FOR (m:Memory) ON (m.layer)",
        ):
            await (await session.run(ddl)).consume()
    assert await migrate(conn) == SCHEMA_VERSION >= 3
    names = {name for name, _ in (await _schema_snapshot(conn))[0]}
    assert not names & {"memory_created_at", "memory_occurred_at", "memory_layer"}
    assert {"memory_scope_key", "memory_scope_layer", "memory_updated_at", "memory_session_id"} <= names


async def test_a_database_made_before_step_4_gets_its_vector_index_rebuilt_with_the_scope_chain(
    conn: Neo4jConnection,
) -> None:
    """A 5.26-era store has ``memory_embedding`` without filter properties: migrate drops it and
    builds ``memory_embedding_chain`` over the existing vectors, which SEARCH can then filter."""
    if not conn.capabilities.supports_search_clause:
        pytest.skip("Neo4j 2026.x only: 5.26 keeps memory_embedding")
    async with conn.driver.session(database=conn.database) as session:
        for ddl in (
            "DROP INDEX memory_embedding_chain IF EXISTS",
            "CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON (m.embedding) "
            "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}",
        ):
            await (await session.run(ddl)).consume()
    assert await migrate(conn) == SCHEMA_VERSION >= 4
    indexes = {name: state for name, state in (await _schema_snapshot(conn))[0]}
    assert "memory_embedding" not in indexes
    assert indexes["memory_embedding_chain"] == "ONLINE"
    async with conn.driver.session(database=conn.database) as session:
        rows = await (
            await session.run(
                "SHOW VECTOR INDEXES YIELD name, properties WHERE name = 'memory_embedding_chain' RETURN properties"
            )
        ).values()
    assert rows == [[["embedding", "scope_lo", "scope_hi"]]]


async def test_a_database_made_before_step_8_gets_scope_chains_and_the_chain_indexes(store: GraphStore) -> None:
    """A store whose vector indexes filter by scope key alone, and whose memories and keys carry
    no chain interval: migrate gives every one its scope's (as the write paths would), drops the
    scope-key indexes and builds the chain ones, after which one chain search finds them."""
    conn = store.conn
    if not conn.capabilities.supports_search_clause:
        pytest.skip("Neo4j 2026.x only: 5.26 has no filtered vector index")
    root = Scope.root("org", f"chain-{uuid.uuid4().hex[:8]}")
    scopes = [root, root.child("team", "t-1.x"), root.child("team", "t-1.x").in_namespace("ns.a")]
    nodes = [
        MemoryNode(layer=Layer.SEMANTIC, content=f"fact {i}", embedding=[1.0, i + 1.0] + [0.0] * 382) for i in range(3)
    ]
    try:
        for scope, node in zip(scopes, nodes, strict=True):
            await store.add_nodes(scope, [node])
        ids = [n.id for n in nodes]
        async with conn.driver.session(database=conn.database) as session:
            for ddl in (
                "DROP INDEX memory_embedding_chain IF EXISTS",
                "DROP INDEX key_embedding_chain IF EXISTS",
                "CYPHER 25 CREATE VECTOR INDEX memory_embedding_scoped IF NOT EXISTS FOR (m:Memory) ON (m.embedding) "
                "WITH [m.scope_key] "
                "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}",
                "CYPHER 25 CREATE VECTOR INDEX key_embedding_scoped IF NOT EXISTS FOR (m:Key) ON (m.embedding) "
                "WITH [m.scope_key] "
                "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}",
            ):
                await (await session.run(ddl)).consume()
            await (
                await session.run(
                    "MATCH (m:Memory) WHERE m.id IN $ids REMOVE m.scope_lo, m.scope_hi "
                    "CREATE (k:Key {id: m.id + ':key', scope_key: m.scope_key, embedding: m.embedding})-[:KEY_OF]->(m)",
                    ids=ids,
                )
            ).consume()
        assert await migrate(conn) == SCHEMA_VERSION >= 8
        indexes = {name: state for name, state in (await _schema_snapshot(conn))[0]}
        assert not {"memory_embedding_scoped", "key_embedding_scoped"} & set(indexes)
        assert indexes["memory_embedding_chain"] == indexes["key_embedding_chain"] == "ONLINE"
        async with conn.driver.session(database=conn.database) as session:
            stored = await (
                await session.run(
                    "MATCH (k:Key)-[:KEY_OF]->(m:Memory) WHERE m.id IN $ids "
                    "RETURN m.scope_key, m.scope_lo, m.scope_hi, k.scope_lo, k.scope_hi",
                    ids=ids,
                )
            ).values()
            await (
                await session.run("MATCH (k:Key) WHERE k.id IN $ids DETACH DELETE k", ids=[i + ":key" for i in ids])
            ).consume()
        assert sorted(stored) == sorted([s.key, s.chain_lo, s.chain_hi, s.chain_lo, s.chain_hi] for s in scopes)
        for scope, seen in ((scopes[2], ids), (scopes[1], ids[:2]), (root, ids[:1])):
            rows = await conn.read(
                MemoryQuery.SEARCH_VECTOR_SCOPED,
                vector=[1.0] * 384,
                visible=scope.ancestor_keys(),
                chain=scope.chain_points(),
                floor="",
                layers=None,
                k=10,
                fetch_k=10,
            )
            assert {r["id"] for r in rows} == set(seen), scope
    finally:
        await store.delete_subtree(root)


async def test_the_connection_knows_the_servers_version_and_its_vector_index(conn: Neo4jConnection) -> None:
    async with conn.driver.session(database=conn.database) as session:
        components = "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0]"
        [[version]] = await (await session.run(components)).values()
        rows = await (await session.run("SHOW VECTOR INDEXES YIELD name, properties RETURN name, properties")).values()
    assert conn.capabilities.version == version
    assert conn.capabilities.supports_search_clause == (not version.startswith("5."))
    filtered = ["embedding", "scope_lo", "scope_hi"] if conn.capabilities.supports_search_clause else ["embedding"]
    assert [conn.capabilities.vector_index, filtered] in rows


async def test_unreachable_database_gives_one_clear_error() -> None:
    with pytest.raises(StoreUnavailableError) as err:
        await Neo4jConnection.connect("bolt://127.0.0.1:1", password="whatever1", timeout=2)
    assert "bolt://127.0.0.1:1" in str(err.value)


async def test_wrong_password_is_reported_as_such(neo4j_server: tuple[str, str]) -> None:
    uri, _ = neo4j_server
    with pytest.raises(StoreUnavailableError, match="authentication"):
        await Neo4jConnection.connect(uri, password="not-the-password")
