"""What the server's version chooses: Cypher 25 ``SEARCH`` statements on Neo4j 2026.x, their
``_lts`` forms and the unfiltered vector index on 5.26, a clear refusal below 5.26 — and the
5.26 forms kept in step with the statements they stand in for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hippograph.dbms.java_runtime import java_range
from hippograph.dbms.local_server import DEFAULT_NEO4J_VERSION, LocalNeo4j, neo4j_line
from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.retrieval.statement import FOLDER, ORDER, recall_statement
from hippograph.store.catalog import CypherQuery
from hippograph.store.fragments import fragments
from hippograph.store.queries import SchemaQuery
from hippograph.store.schema import LTS_STEPS, SCHEMA_STEPS, expected_schema_names, schema_steps
from hippograph.store.server_capabilities import ServerCapabilities, parse_version
from hippograph.store.vector_search import MAX_INDEX_FETCH, index_fetches
from tests.support.catalog import all_queries

CURRENT = ServerCapabilities.of("2026.08.1", "community")
LTS = ServerCapabilities.of("5.26.31", "community")
POM = Path(__file__).resolve().parents[2] / "src" / "hippograph" / "dbms" / "launcher" / "pom.xml"


@pytest.mark.parametrize(
    ("version", "search_clause"),
    [("2026.08.1", True), ("2026.01.0", True), ("2027.02.3", True), ("5.26.31", False), ("5.26.0", False),
     ("2025.10.1", False), ("5.27.0-aura", False), ("dev", True)],
)  # fmt: skip
def test_the_search_clause_comes_with_2026_01(version: str, search_clause: bool) -> None:
    assert ServerCapabilities.of(version).supports_search_clause is search_clause


@pytest.mark.parametrize("version", ["5.25.1", "5.0.0", "4.4.30"])
def test_a_server_older_than_5_26_is_refused_by_name(version: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(f"Neo4j {version} is too old")) as err:
        ServerCapabilities.of(version)
    assert "5.26" in str(err.value) and "HIPPOGRAPH_NEO4J_VERSION" in str(err.value)


def test_versions_parse_to_major_and_minor() -> None:
    assert parse_version("5.26.31") == (5, 26)
    assert parse_version("2026.08.1") == (2026, 8)
    assert parse_version("dev") is None


def test_each_server_gets_its_own_statements_and_index() -> None:
    key_vector = (RetrievalQuery.SEARCH_KEY_VECTOR, RetrievalQuery.SEARCH_KEY_VECTOR_LTS)
    assert CURRENT.pick(*key_vector) is RetrievalQuery.SEARCH_KEY_VECTOR
    assert LTS.pick(*key_vector) is RetrievalQuery.SEARCH_KEY_VECTOR_LTS
    assert (CURRENT.vector_index, LTS.vector_index) == ("memory_embedding_chain", "memory_embedding")
    assert "inside the vector index" in CURRENT.vector_filtering
    assert "after the vector index" in LTS.vector_filtering
    assert ServerCapabilities() == ServerCapabilities(supports_search_clause=True, version="unknown")


def _twin(query: CypherQuery) -> CypherQuery | None:
    return next((q for q in type(query) if q.name == f"{query.name}_LTS"), None)


def test_every_cypher_25_statement_has_a_5_26_stand_in() -> None:
    refused = [q for q in all_queries() if not LTS.can_run(q)]
    assert {q.path for q in refused} == {
        "schema/create_vector_index_memory_embedding_chain",
        "schema/drop_index_memory_embedding_chain",  # re-embedding drops memory_embedding on 5.26
        "retrieval/search_vector_candidates",
        "memory/search_vector_scoped",
        "schema/create_vector_index_key_embedding_chain",  # 5.26 scans the visible keys instead
        "retrieval/search_key_vector",
    }
    for query in refused:
        stand_in = SchemaQuery.DROP_INDEX_MEMORY_EMBEDDING if "drop_index" in query.path else _twin(query)
        assert stand_in is not None or query in LTS_STEPS, query
        assert CURRENT.can_run(query)


def test_the_5_26_statements_use_no_cypher_25_and_the_unfiltered_index() -> None:
    twins = [q for q in all_queries() if q.name.endswith("_LTS")]
    assert len(twins) == 3
    for query in [*twins, SchemaQuery.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING]:
        lines = [line for line in query.text.splitlines() if not line.lstrip().startswith("//")]
        code = "\n".join(lines)
        assert "CYPHER 25" not in code and "SEARCH " not in code and "_embedding_chain" not in code, query
        assert LTS.can_run(query)
    for query in twins:
        if query is RetrievalQuery.SEARCH_KEY_VECTOR_LTS:  # no key vector index on 5.26: an exact scan
            assert "USING INDEX SEEK k:Key(scope_key)" in query.text
        else:
            assert "db.index.vector.queryNodes('memory_embedding'," in query.text, query


def test_no_statement_5_26_runs_names_the_2026_index() -> None:
    """A statement both servers run takes the index's name as a parameter (``$vector_index``)."""
    for query in all_queries():
        if LTS.can_run(query):
            assert "memory_embedding_chain" not in _code(query.text), query


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//") and line != "CYPHER 25")


def test_the_5_26_recall_statement_differs_only_in_its_vector_channels() -> None:
    """One recall, one source: the 5.26 statement is the 2026.x one but for the fragments that
    have a 5.26 variant (the two vector channels) and the CYPHER 25 line."""
    current, lts = recall_statement(lts=False).text, recall_statement(lts=True).text
    assert current.startswith("CYPHER 25\n") and "CYPHER 25" not in lts
    varied = {f.name for f in fragments(FOLDER, ORDER, lts=True)} - {
        f.name
        for f, g in zip(fragments(FOLDER, ORDER, lts=True), fragments(FOLDER, ORDER, lts=False), strict=True)
        if f.body == g.body
    }
    assert varied == {"vector", "key_vector"}
    assert "SEARCH " not in lts and "_embedding_chain" not in lts
    assert "SEARCH m IN (VECTOR INDEX memory_embedding_chain" in current
    assert "db.index.vector.queryNodes('memory_embedding'" in lts


def test_schema_step_4_builds_the_index_this_server_can_have() -> None:
    assert schema_steps(CURRENT) == SCHEMA_STEPS
    lts_queries = [q for _, queries in schema_steps(LTS) for q in queries]
    assert SchemaQuery.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING in lts_queries
    assert SchemaQuery.DROP_INDEX_MEMORY_EMBEDDING not in lts_queries  # dropping it would rebuild it each start
    assert SchemaQuery.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN not in lts_queries
    assert SchemaQuery.UPDATE_MEMORY_SCOPE_BOUNDS not in lts_queries  # a move to 2026.x backfills
    assert [v for v, _ in schema_steps(LTS)] == [v for v, _ in SCHEMA_STEPS]
    names = expected_schema_names(LTS)
    assert "memory_embedding" in names and "memory_embedding_chain" not in names
    assert "memory_embedding_chain" in expected_schema_names(CURRENT) == expected_schema_names()
    assert "memory_embedding_scoped" not in expected_schema_names(CURRENT)


def test_the_5_26_path_widens_its_fetch_before_the_exact_scan() -> None:
    assert index_fetches(100) == [100, 800, 6400, MAX_INDEX_FETCH]
    assert index_fetches(MAX_INDEX_FETCH + 5) == [MAX_INDEX_FETCH + 5]
    assert index_fetches(0) == [1, 8, 64, 512, 4096, MAX_INDEX_FETCH]


def test_the_launcher_default_is_the_poms_version() -> None:
    found = re.search(r"<neo4j.version>([^<]+)</neo4j.version>", POM.read_text())
    assert found is not None and found.group(1) == DEFAULT_NEO4J_VERSION


def test_each_neo4j_version_is_built_apart_and_runs_on_its_java(tmp_path: Path) -> None:
    default = LocalNeo4j(tmp_path / "a", cache_dir=tmp_path / "cache")
    lts = LocalNeo4j(tmp_path / "b", cache_dir=tmp_path / "cache", neo4j_version="5.26.31")
    assert (default.neo4j_version, default.lts, lts.lts) == (DEFAULT_NEO4J_VERSION, False, True)
    sources = POM.parent
    assert default._launcher_dir(sources).name.startswith("launcher-")
    assert lts._launcher_dir(sources).name == default._launcher_dir(sources).name + "-neo4j-5.26.31"
    assert java_range("5.26.31") == (17, 21) and java_range(None) == java_range("2026.08.1") == (21, None)


@pytest.mark.parametrize("version", ["5.26", "latest", "5.26.31; rm -rf /", "5.25.9", "4.4.1"])
def test_a_malformed_or_too_old_neo4j_version_is_refused(tmp_path: Path, version: str) -> None:
    with pytest.raises(InvalidInputError, match="neo4j_version"):
        LocalNeo4j(tmp_path, neo4j_version=version)
    assert neo4j_line("5.26.31") == (5, 26)


def test_a_database_a_newer_neo4j_wrote_is_not_opened_by_5_26(tmp_path: Path) -> None:
    server = LocalNeo4j(tmp_path, cache_dir=tmp_path / "cache", neo4j_version="5.26.31")
    server.version_file.parent.mkdir(parents=True)
    server.version_file.write_text("2026.08.1\n")
    with pytest.raises(ConfigurationError, match=re.escape("last run by Neo4j 2026.08.1")):
        server.start()
    assert not (tmp_path / "cache").exists()  # refused before anything was built
