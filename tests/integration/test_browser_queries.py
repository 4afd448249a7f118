"""The saved Browser queries of ``cypher/browser/`` against the real Neo4j: each one plans
(EXPLAIN, with the values of its own ``:param`` lines), and each one finds what the library wrote."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hippograph.analysis.browser import recall_query, saved_queries
from hippograph.app.demo import sample_turns
from hippograph.consolidation import SleepConsolidator
from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection

QUERIES = saved_queries()


async def run(conn: Neo4jConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    query = QUERIES[name]
    async with conn.driver.session(database=conn.database) as session:
        result = await session.run(query.statement, {**query.params, **params})
        return [r.data() for r in await result.fetch(10_000)]


def test_there_is_a_saved_query_for_each_view() -> None:
    assert set(QUERIES) >= {
        "scope_memories_by_layer",
        "memory_neighbourhood",
        "recall_activation_paths",
        "consolidation_history",
        "retracted_memories",
        "supersession_chain",
    }
    for query in QUERIES.values():
        assert query.params, f"{query.name} starts with no :param line"
        assert query.title and query.description


@pytest.mark.parametrize("name", sorted(QUERIES))
async def test_saved_query_passes_explain(conn: Neo4jConnection, name: str) -> None:
    query = QUERIES[name]
    async with conn.driver.session(database=conn.database) as session:
        result = await session.run("EXPLAIN " + query.statement, query.params)
        summary = await result.consume()
    assert summary.plan is not None


async def test_saved_queries_find_what_the_library_wrote(
    conn: Neo4jConnection, store: GraphStore, tenant: Scope
) -> None:
    memory = Memory(store, HashingEmbeddings())
    user = tenant.child("user", "sam")
    await memory.ingest(user, sample_turns())
    old = await memory.remember(user, "Sam's employer", "Sam works at Orbital Arms.", key="sam.employer")
    new = await memory.remember(user, "Sam's employer", "Sam works at Tidewater Labs.", key="sam.employer")
    doomed = await memory.remember(user, "Sam's shoe size", "Sam wears size 44.")
    await memory.retract(user, doomed.id, reason="the user asked to forget it", actor="user")

    by_layer = await run(conn, "scope_memories_by_layer", scope_key=user.key)
    assert {row["s"]["key"] for row in by_layer} == {user.key}
    assert {"episodic", "semantic"} <= {row["m"]["layer"] for row in by_layer}
    assert doomed.id not in {row["m"]["id"] for row in by_layer}

    chain = await run(conn, "supersession_chain", scope_key=user.key, fact_key="sam.employer")
    assert {row["f"]["id"] for row in chain} == {old.id, new.id}
    assert [(row["f"]["id"], row["older"]["id"]) for row in chain if row["older"]] == [(new.id, old.id)]

    retracted = await run(conn, "retracted_memories", scope_key=tenant.key)
    assert [row["id"] for row in retracted] == [doomed.id]
    assert "the user asked to forget it" in retracted[0]["why"]

    neighbourhood = await run(conn, "memory_neighbourhood", memory_id=by_layer[0]["m"]["id"])
    assert neighbourhood, "an ingested event has neighbours (NEXT, cues)"

    result = await memory.recall(user, "Where does Sam work now?", top_k=5)
    params = {
        line.split()[1]: json.loads(line.split("=>", 1)[1].strip().rstrip(";"))
        for line in recall_query(result).splitlines()
        if line.startswith(":param")
    }
    paths = await run(conn, "recall_activation_paths", **params)
    drawn = {row["source"]["id"] for row in paths} | {row["target"]["id"] for row in paths}
    assert set(result.activation.seeds) <= drawn
    assert len([row for row in paths if row["step"] is not None]) == len(params["sources"])

    report = await SleepConsolidator(conn).run(user)
    history = await run(conn, "consolidation_history", scope_key=user.key)
    assert [row["status"] for row in history] == [report.status.value]
    assert history[0]["entry_point"] == report.entry_point.value

    tree = await run(conn, "scope_tree", scope_key=tenant.key)
    assert tree and tree[0]["s"]["key"] == tenant.key
