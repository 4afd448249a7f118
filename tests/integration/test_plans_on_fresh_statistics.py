"""A statement's plan is cached for the server's life. One made on a fresh database that has
just taken its first memories is made from index samples that still say "empty": the planner
then thinks scanning a whole index is free and scans every memory once per row (a recall of a
419-turn conversation took 1.0–1.8 s instead of 60–70 ms). The statements on the ingest → recall → read path name their
index seeks, so their plans seek whatever the statistics say.

On its own throwaway server: the suite's shared one has long been sampled. Without the hints
this test fails (420 turns: recall, get_node and get_neighbors scanned); with 300 turns the
planner happened to choose seeks anyway."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from hippograph.dbms import LocalNeo4j
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.memory.ingest import ConversationTurn, ingest_conversation
from hippograph.models import Layer
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from hippograph.store.catalog import CypherQuery
from hippograph.testing.server import served
from tests.support.memory_internals import internals

SCANS = ("NodeIndexScan", "NodeByLabelScan", "AllNodesScan", "NodeUniqueIndexScan")
WORDS = "pottery camping painting running violin swimming hiking museum parade garden".split()


def memory_scans(plan: dict[str, Any]) -> list[str]:
    """The plan's operators that read every Memory (of an index or the label) to find a few."""
    found = []
    op = plan["operatorType"].split("@")[0]
    details = str(plan.get("args", {}).get("Details", ""))
    if op in SCANS and ":Memory" in details:
        found.append(f"{op} {details[:80]}")
    for child in plan.get("children", []):
        found += memory_scans(child)
    return found


def conversation(n: int) -> list[ConversationTurn]:
    return [
        ConversationTurn(
            turn_id=f"t{i}",
            session_id=f"s{i // 20}",
            speaker=("Caroline", "Melanie")[i % 2],
            text=f"I told {('Melanie', 'Caroline')[i % 2]} about {WORDS[i % 10]} and {WORDS[(i * 7) % 10]} on day {i}",
            occurred_at=1_700_000_000.0 + 3600 * i,
        )
        for i in range(n)
    ]


@pytest.fixture
async def fresh(tmp_path: Any) -> AsyncIterator[GraphStore]:
    server = LocalNeo4j(
        tmp_path / "neo4j",
        heap="512m",
        pagecache_mb=64,
        stop_with_parent=True,
        neo4j_version=os.environ.get("HIPPOGRAPH_TEST_NEO4J_VERSION") or None,
    )
    with served(server) as (uri, password):
        conn = await Neo4jConnection.connect(uri, password=password)
        await migrate(conn)
        try:
            yield GraphStore(conn)
        finally:
            await conn.close()


async def test_the_read_path_seeks_on_a_fresh_database_that_just_took_its_memories(
    fresh: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = Memory(fresh, HashingEmbeddings())
    scope = Scope.root("org", "fresh").child("conversation", "c1")
    nodes = await ingest_conversation(internals(memory).services, internals(memory).episodic, scope, conversation(420))
    conn = fresh.conn
    ran: dict[str, tuple[CypherQuery, dict[str, Any]]] = {}
    original = conn._managed

    async def capture(query: CypherQuery, params: dict[str, Any], **kw: Any) -> Any:
        ran.setdefault(getattr(query, "name", query.path), (query, dict(params)))
        return await original(query, params, **kw)

    monkeypatch.setattr(conn, "_managed", capture)  # every read and write passes here
    result = await memory.recall(scope, "What does Melanie do, pottery or camping?", layers=[Layer.EPISODIC])
    assert result.items, "the recall found nothing: the check below would prove nothing"
    assert await fresh.get_node(scope, nodes[0].id) is not None
    await fresh.get_nodes(scope, [n.id for n in nodes[:5]])
    await fresh.get_neighbors(scope, nodes[1].id)
    monkeypatch.undo()
    assert conn.capabilities.pick("retrieval/recall@2026", "retrieval/recall@lts") in ran
    assert "GET_NODE" in ran and "GET_NEIGHBORS" in ran
    scans = {}
    async with conn.driver.session(database=conn.database) as session:
        for name, (query, params) in ran.items():
            summary = await (await session.run("EXPLAIN " + query.text, params)).consume()
            assert summary.plan is not None
            if found := memory_scans(summary.plan):
                scans[name] = found
    assert scans == {}
