"""Issue 9 #2: an erase works at any size. Forgetting an org of 10,000 memories used to fail
on the default local server: the one-statement delete overflowed the 512 MiB transaction
memory pool. The same overflow is reproduced cheaply here on a dedicated server with a
64 MiB pool and a few thousand memories. The erase must still be all-or-nothing in effect:
the subtree is hidden at once, then deleted in batches."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from hippograph.cues import cues_of
from hippograph.dbms import LocalNeo4j
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from hippograph.testing.server import served
from tests.support.memory_internals import internals

POOL_MB = 64
MEMORIES = 3000
BATCH = 500


@pytest.fixture(scope="module")
def small_pool_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server of this module alone whose transactions may use only 64 MiB in all."""
    server = LocalNeo4j(
        tmp_path_factory.mktemp("neo4j-small-pool"),
        heap="768m",
        pagecache_mb=128,
        tx_max_mb=POOL_MB,
        stop_with_parent=True,
    )
    with served(server) as address:
        yield address


@pytest.fixture(scope="module")
async def small_memory(small_pool_server: tuple[str, str]) -> AsyncIterator[Memory]:
    uri, password = small_pool_server
    conn = await Neo4jConnection.connect(uri, password=password)
    await migrate(conn)
    memory = Memory(GraphStore(conn), HashingEmbeddings())
    yield memory
    await memory.close()


def _vector(rng: random.Random) -> list[float]:
    return [rng.gauss(0.0, 1.0) for _ in range(384)]


async def _fill(memory: Memory, org: Scope) -> int:
    """MEMORIES episodic memories over a few users, chained by NEXT, each with its cues."""
    rng = random.Random(org.key)
    users = [org.child("user", f"u{i}") for i in range(3)]
    written = 0
    for b in range(MEMORIES // BATCH):
        scope = users[b % len(users)]
        nodes = [
            MemoryNode(
                layer=Layer.EPISODIC,
                label=f"event {b}-{i}",
                content=f"User {b} said thing number {i} about topic{i % 50} and person{i % 7}.",
                session_id=f"s{b}",
                embedding=_vector(rng),
            )
            for i in range(BATCH)
        ]
        await internals(memory).store.add_nodes(scope, nodes, cues={n.id: cues_of(n) for n in nodes})
        await internals(memory).store.upsert_edges(
            scope, [MemoryEdge(source=a.id, target=c.id, relationship=Relationship.NEXT) for a, c in pairwise(nodes)]
        )
        written += len(nodes)
    return written


async def test_forgetting_a_large_org_works_within_a_small_transaction_pool(
    small_memory: Memory, tmp_path: Path
) -> None:
    org = Scope.root("org", f"big-{tmp_path.name[-10:]}".replace("_", "-"))
    written = await _fill(small_memory, org)
    seen: list[tuple[int, int]] = []

    def crash_after_two_batches(done: int, total: int) -> None:
        seen.append((done, total))
        if len(seen) == 2:
            raise RuntimeError("the process died mid-erase")

    with pytest.raises(RuntimeError, match="mid-erase"):
        await small_memory.forget(org, progress=crash_after_two_batches)
    first = seen[-1][0]
    assert 0 < first < written and seen[-1][1] == written  # progress says how far, out of what
    assert await small_memory.forget(org) == written - first  # erasing again finishes the job
    assert await internals(small_memory).store.query_subtree(org, {"include_retracted": True}, limit=None) == []
    assert await internals(small_memory).store.count_vectors(org.child("user", "u0")) == 0
