"""Read-your-writes through ``neo4j://`` routing, as on Aura or a cluster: the suite's server
answers routing for itself (reader and writer at once), so every statement here goes through
the routing driver, and each read carries the bookmarks of the writes before it: those of the
connection outside a causal scope, the scope's own inside one, never another scope's."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection

import neo4j
import pytest
from neo4j import AsyncGraphDatabase
from neo4j.api import AsyncBookmarkManager

import hippograph as hg
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from hippograph.store.queries import MemoryQuery as Q
from tests.support.memory_internals import internals
from tests.support.transactions import execute_query

ROUTING = {"bolt": "neo4j", "bolt+s": "neo4j+s", "bolt+ssc": "neo4j+ssc"}


class RecordingBookmarks(AsyncBookmarkManager):
    """The driver's own bookmark manager, with a record of what each transaction started with
    (``previous``: the bookmarks it sent) and what it got back."""

    def __init__(self) -> None:
        self.inner = AsyncGraphDatabase.bookmark_manager()
        self.updates: list[tuple[frozenset[str], frozenset[str]]] = []

    async def update_bookmarks(self, previous_bookmarks: Collection[str], new_bookmarks: Collection[str]) -> None:
        self.updates.append((frozenset(previous_bookmarks), frozenset(new_bookmarks)))
        await self.inner.update_bookmarks(previous_bookmarks, new_bookmarks)

    async def get_bookmarks(self) -> Collection[str]:
        return await self.inner.get_bookmarks()


@pytest.fixture(scope="module")
def routing(neo4j_server: tuple[str, str]) -> tuple[str, str]:
    """The suite's server as a routing URI (``bolt://h:p`` → ``neo4j://h:p``) and its password."""
    uri, password = neo4j_server
    scheme, rest = uri.split("://", 1)
    return f"{ROUTING.get(scheme, scheme)}://{rest}", password


@pytest.fixture
async def routed(routing: tuple[str, str]) -> AsyncIterator[Neo4jConnection]:
    uri, password = routing
    conn = await Neo4jConnection.connect(uri, password=password)
    yield conn
    await conn.close()


@pytest.fixture
async def routed_memory(routing: tuple[str, str]) -> AsyncIterator[Memory]:
    uri, password = routing
    memory = await Memory.connect(
        uri, password=password, embedder=HashingEmbeddings(), apply_schema=False, warm_plans=False
    )
    yield memory
    await memory.close()


async def test_the_connection_routes(routed: Neo4jConnection) -> None:
    assert isinstance(routed.driver, neo4j.AsyncNeo4jDriver)  # the routing driver, not a direct one


async def test_a_read_carries_the_bookmarks_of_the_write_before_it(routed: Neo4jConnection, tenant: Scope) -> None:
    recording = RecordingBookmarks()
    routed.bookmarks = recording
    store = GraphStore(routed)
    node = await store.add_node(
        tenant, MemoryNode(layer=Layer.SEMANTIC, label="Bob's city", content="Bob lives in Lisbon.")
    )
    written = set(await recording.get_bookmarks())
    assert written and recording.updates[0][0] == frozenset()  # the first write started from nothing

    found = await store.get_node(tenant, node.id)  # execute_read: routed to a reader
    assert found is not None and found.content == "Bob lives in Lisbon."
    assert recording.updates[-1][0] == written  # the read waited for the write

    before = set(await recording.get_bookmarks())
    rows = await execute_query(
        routed, Q.GET_NODE, write=False, id=node.id, visible=tenant.ancestor_keys(), with_embedding=False
    )
    assert [r["m"]["id"] for r in rows] == [node.id]
    assert recording.updates[-1][0] == before  # execute_query carries them too


async def test_scopes_keep_their_bookmarks_apart(routed: Neo4jConnection, tenant: Scope) -> None:
    recording = RecordingBookmarks()
    routed.bookmarks = recording
    store = GraphStore(routed)
    with hg.causal_scope():
        node = await store.add_node(
            tenant, MemoryNode(layer=Layer.SEMANTIC, label="Ana's city", content="Ana lives in Porto.")
        )
        mine = routed.bookmark_manager()
        written = set(await mine.get_bookmarks())
        assert written
        with hg.causal_scope():  # another request, at the same time
            theirs = routed.bookmark_manager()
            assert set(await theirs.get_bookmarks()) == set()  # nothing of the other scope's to wait for
            assert await store.get_node(tenant, node.id) is not None  # one server: it is there anyway
            assert set(await theirs.get_bookmarks()) and set(await mine.get_bookmarks()) == written
        assert await store.get_node(tenant, node.id) is not None
    assert recording.updates == []  # scoped work leaves the connection's own bookmarks alone


async def test_memory_over_routing_recalls_what_it_just_remembered(routed_memory: Memory, tenant: Scope) -> None:
    memory = routed_memory
    assert internals(memory).store.conn.uri.startswith("neo4j")
    fact = await memory.remember(tenant, "Bob's city", "Bob lives in Lisbon.")
    assert fact.id in (await memory.recall(tenant, "Where does Bob live?")).ids
    assert await internals(memory).store.conn.bookmarks.get_bookmarks()

    with hg.causal_scope():
        other = tenant.child("user", "ana")
        again = await memory.remember(other, "Ana's city", "Ana lives in Porto.")
        assert again.id in (await memory.recall(other, "Where does Ana live?")).ids
