"""One ``Cue`` node per (scope, kind, key), however many writers create it at once: concurrent
writers meet on one node (a uniqueness constraint, which MERGE locks on), so spreading through
a cue never splits its weight over copies."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import AsyncIterator

import pytest

from hippograph.cues import cues_of
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import SCHEMA_VERSION, GraphStore, Neo4jConnection, migrate
from tests.integration.memory.helpers import run_file
from tests.support.memory_internals import internals
from tests.support.recall_oracle import OracleRepository

WRITERS = 50
CONNECTIONS = 5


@pytest.fixture
async def writers(neo4j_server: tuple[str, str]) -> AsyncIterator[list[Memory]]:
    """Memories over separate connections (separate driver pools, as separate API workers)."""
    uri, password = neo4j_server
    out = []
    for _ in range(CONNECTIONS):
        conn = await Neo4jConnection.connect(uri, password=password)
        out.append(Memory(GraphStore(conn), HashingEmbeddings()))
    yield out
    for worker in out:
        await worker.close()


async def test_fifty_concurrent_writers_into_a_new_scope_share_one_cue_per_key(
    writers: list[Memory], conn: Neo4jConnection, tenant: Scope
) -> None:
    scope = tenant.child("user", "ana")  # new: every cue of it is created by this burst

    async def write(i: int) -> None:
        memory = writers[i % CONNECTIONS]
        text = f"On trip {i} Ana sailed with Bruno from Lisbon to Porto."
        await memory.remember(scope, f"Ana's trip {i}", text, dedup=False)  # no scope lock: writers overlap

    await asyncio.gather(*(write(i) for i in range(WRITERS)))
    facts = await internals(writers[0]).store.query_nodes(scope, {}, limit=None)
    assert len(facts) == WRITERS
    expected: dict[tuple[str, str], set[str]] = defaultdict(set)
    for fact in facts:
        for cue in cues_of(fact):
            expected[(cue.kind.value, cue.key)].add(fact.id)
    rows = await run_file(conn, "get_scope_cues", scope_key=scope.key)
    copies = Counter((r["kind"], r["key"]) for r in rows)
    assert {k: n for k, n in copies.items() if n > 1} == {}
    assert {(r["kind"], r["key"]): set(r["members"]) for r in rows} == expected
    assert all(len(r["members"]) == len(set(r["members"])) and r["in_scope"] == 1 for r in rows)
    assert {("entity", "ana"), ("entity", "lisbon"), ("keyword", "sail")} <= expected.keys()
    assert all(len(expected[k]) == WRITERS for k in (("entity", "lisbon"), ("keyword", "sail")))


async def _cues(conn: Neo4jConnection, scope: Scope) -> list[tuple[str, str, list[str], int]]:
    rows = await run_file(conn, "get_scope_cues", scope_key=scope.key)
    return sorted((r["kind"], r["key"], sorted(r["members"]), r["in_scope"]) for r in rows)


async def _schema_names(conn: Neo4jConnection) -> set[str]:
    async with conn.driver.session(database=conn.database) as session:
        idx = await (await session.run("SHOW INDEXES YIELD name RETURN name")).values()
        cons = await (await session.run("SHOW CONSTRAINTS YIELD name RETURN name")).values()
    return {r[0] for r in idx} | {f"constraint:{r[0]}" for r in cons}


async def test_migrating_a_database_with_duplicate_cues_keeps_one_cue_with_every_membership(
    memory: Memory, conn: Neo4jConnection, tenant: Scope
) -> None:
    """A store written before the constraint (lookup index, duplicate cues from concurrent
    writers): migrate folds each set of copies into the oldest, with every memory's link and
    one link to the scope kept, then builds the constraint; a second run changes nothing."""
    scope = tenant.child("user", "ana")
    facts = [
        await memory.remember(scope, f"Ana's trip {i}", f"On trip {i} Ana sailed from Lisbon to Porto.", dedup=False)
        for i in range(6)
    ]
    ids = [f.id for f in facts]
    intact = await _cues(conn, scope)
    await run_file(conn, "drop_constraint_cue_key")
    await run_file(conn, "create_index_cue_scope_kind_key")
    try:
        for later, moved in ((1.0, ids[1:3]), (2.0, ids[3:4])):
            await run_file(conn, "create_duplicate_cue", scope_key=scope.key, kind="entity", key="lisbon",
                           later=later, moved=moved, both=[])  # fmt: skip
        await run_file(conn, "create_duplicate_cue", scope_key=scope.key, kind="keyword", key="sail",
                       later=-1.0, moved=ids[:1], both=ids[4:])  # fmt: skip
        duplicated = await _cues(conn, scope)
        assert len(duplicated) == len(intact) + 3
        sail = sorted(m for row in duplicated if row[:2] == ("keyword", "sail") for m in row[2])
        assert sail == sorted(ids + ids[4:])  # two memories tied to both copies
    finally:
        assert await migrate(conn) == SCHEMA_VERSION
    assert await _cues(conn, scope) == intact
    names = await _schema_names(conn)
    assert "constraint:cue_key" in names and "cue_scope_kind_key" not in names
    assert await migrate(conn) == SCHEMA_VERSION
    assert await _cues(conn, scope) == intact and await _schema_names(conn) == names
    recalled = await memory.recall(scope, "Who sailed to Lisbon?")  # its cue seeks use the constraint's index
    assert recalled.items and {item.node.id for item in recalled.items} <= set(ids)


async def test_a_person_named_at_two_scope_levels_is_named_once(store: GraphStore, tenant: Scope) -> None:
    """The user and their conversation each hold an ``ann`` person cue (two nodes under the
    constraint): recall sees one named person, so the one-person bonus still applies."""
    user = tenant.child("user", "u")
    conversation = user.child("conversation", "c")
    for scope in (user, conversation):
        node = MemoryNode(layer=Layer.EPISODIC, content="the lantern was violet", properties={"speaker": "Ann"})
        await store.add_nodes(scope, [node], cues={node.id: cues_of(node)})
    named = await OracleRepository(store).person_cues(visible=conversation.ancestor_keys(), keys=["what", "ann"])
    assert named == ["ann"]
