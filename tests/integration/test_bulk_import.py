"""``hippograph import --bulk``: the offline importer writes the graph the online path writes.

A 2,000-turn conversation (text with the characters CSV files trip on: quotes, commas,
semicolons, line breaks, non-ASCII) is ingested online into the suite's Neo4j and bulk-imported
into a fresh local server; the two graphs must be equal node for node and relationship for
relationship, every property included (only write times differ). Then an export of it, and a
second import into the now non-empty database, which is refused with nothing changed.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from hippograph.app.api.bulk import bulk_import, read_input
from hippograph.app.api.export import export_lines
from hippograph.app.api.repository import ExportRepository
from hippograph.dbms import LocalNeo4j
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import ConflictError, InvalidInputError
from hippograph.memory import Memory
from hippograph.memory.ingest import turn_node_id
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.reliability.dump import canonical_dump, graph_rows, mentions

WRITE_TIMES = {"created_at", "updated_at"}
"""Stamped with the clock of the write: with an edge's id (drawn when the edge is made), the only
properties two loads of one file may differ in."""
WORDS = ["pottery", "hiking", "adoption", "painting", "Zürich", "café", "camping", "guitar", "violin", "Tōkyō"]


def conversation(n: int) -> list[dict[str, Any]]:
    turns = []
    for i in range(n):
        a, b = WORDS[i % 10], WORDS[(i * 7) % 10]
        text = f'I said "{a}", then {b}; day {i}, see you\nsoon' if i % 5 == 0 else f"{a} and {b}, on day {i}"
        turn = {
            "turn_id": f"D{i // 40}:{i % 40}",
            "session_id": f"session {i // 40}",
            "speaker": ("Caroline", "Melanie")[i % 2],
            "text": text,
            "occurred_at": 1_700_000_000.0 + 3600 * i,
        }
        if i % 17 == 0:
            turn["caption"] = "a photo of a mug; blue, with a 'handle'"
        turns.append(turn)
    return turns


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<time>" if k in WRITE_TIMES else _masked(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


async def _dump(conn: Neo4jConnection, key: str) -> Counter[str]:
    """The graph under ``key`` as canonical lines, write times masked."""
    nodes, relationships = await graph_rows(conn)
    nodes = [{**r, "props": _masked(r["props"])} for r in nodes]
    relationships = [{**r, "props": {**_masked(r["props"]), "id": "<drawn>"}} for r in relationships]
    return Counter({line: n for line, n in canonical_dump(nodes, relationships).items() if mentions(line, key)})


@pytest.fixture(scope="module")
def bulk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4j]:
    server = LocalNeo4j(
        tmp_path_factory.mktemp("bulk") / "neo4j",
        heap="512m",
        pagecache_mb=64,
        stop_with_parent=True,
        neo4j_version=os.environ.get("HIPPOGRAPH_TEST_NEO4J_VERSION") or None,
    )
    try:
        yield server
    finally:
        server.stop()


async def _connect(uri: str, password: str) -> Neo4jConnection:
    return await Neo4jConnection.connect(uri, password=password)


@pytest.fixture
async def bulk_conn(bulk_server: LocalNeo4j) -> AsyncIterator[Neo4jConnection]:
    status = bulk_server.start()
    conn = await _connect(status.uri or bulk_server.uri(), bulk_server.password())
    yield conn
    await conn.close()


async def test_a_bulk_import_writes_the_graph_that_ingest_writes(
    store: GraphStore, bulk_server: LocalNeo4j, tmp_path: Path
) -> None:
    root = Scope.root("org", "bulk-acme")
    scope = root.child("user", "ana").child("conversation", "c1")
    turns = conversation(2000)
    memory = Memory(store, HashingEmbeddings())
    await memory.ingest(scope, turns)
    try:
        online = await _dump(store.conn, root.key)

        file = tmp_path / "turns.jsonl"
        file.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
        phases: set[str] = set()
        report = await bulk_import(
            bulk_server,
            read_input(file, scope),
            HashingEmbeddings(),
            connect=_connect,
            progress=lambda phase, done, total: phases.add(phase),
        )
        assert (report.memories, report.edges, report.embedded) == (2000, 1950, 2000)
        assert phases == {"embedding", "writing"}

        status = bulk_server.status()
        assert status.running, "the server runs again after the import"
        conn = await _connect(status.uri or bulk_server.uri(), bulk_server.password())
        try:
            loaded = await _dump(conn, root.key)
            assert sum(loaded.values()) == sum(online.values()) > 8000
            assert loaded == online, f"differ: {sorted((loaded - online).elements())[:3]}"
            bulk_memory = Memory(GraphStore(conn), HashingEmbeddings())
            turn = turns[1234]  # the indexes were built over the loaded data: recall finds it
            found = [i.node.id for i in (await bulk_memory.recall(scope, turn["text"])).items[:3]]
            assert turn_node_id(scope, turn["turn_id"]) in found
        finally:
            await conn.close()
    finally:
        await store.delete_subtree(root)


async def test_an_export_loads_and_a_non_empty_database_is_refused(
    bulk_server: LocalNeo4j, bulk_conn: Neo4jConnection, tmp_path: Path
) -> None:
    root = Scope.root("org", "bulk-acme")
    before = await _dump(bulk_conn, root.key)
    assert before, "the previous test loaded the conversation"
    exported = [line async for line in export_lines(ExportRepository(bulk_conn), root, embeddings=True)]
    file = tmp_path / "export.jsonl"
    file.write_text("".join(exported), encoding="utf-8")
    data = read_input(file, None)
    assert len(data.nodes) == 2000 and not data.embed_texts, "an export with vectors embeds nothing again"
    with pytest.raises(ConflictError, match="not empty"):
        await bulk_import(bulk_server, data, HashingEmbeddings(), connect=_connect)
    assert await _dump(bulk_conn, root.key) == before, "a refused import changes nothing"


def test_bad_input_is_refused_before_anything_runs(tmp_path: Path) -> None:
    turns = tmp_path / "turns.json"
    turns.write_text(json.dumps(conversation(3)), encoding="utf-8")
    with pytest.raises(InvalidInputError, match="scope"):
        read_input(turns, None)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(conversation(1)[0]) + "\n" + '{"turn_id": "x"}\n', encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"turns\[1\]"):
        read_input(broken, Scope.root("org", "a"))
