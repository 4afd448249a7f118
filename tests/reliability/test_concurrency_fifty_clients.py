"""Issue 13 #2: fifty concurrent clients — recalls, edge upserts, ingests, agent turns and
consolidation runs on one scope and its siblings, spread over five connections (five "API
workers", so no Python lock can be what holds it together). Afterwards: access counts and edge
weights are exact (no lost update), no node is duplicated, no transient fault (deadlock)
reached a caller, and no two runs ever held leases on overlapping scopes at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.consolidation import SleepConsolidator
from hippograph.consolidation.lease import Lease
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import AlreadyRunningError
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.support.memory_internals import internals

WORKERS = 5
RECALLS = 15
LINKS = 10
INGESTS = 10
TURNS = 10
RUNS = 5
CLIENTS = RECALLS + LINKS + INGESTS + TURNS + RUNS
SIBLINGS = 4
CONVERSATION = [
    {"turn_id": f"t{i}", "session_id": f"s{i % 3}", "speaker": "Bo", "text": f"Bo's remark {i} about sailing."}
    for i in range(30)
]


@pytest.fixture
async def workers(neo4j_server: tuple[str, str]) -> AsyncIterator[list[Memory]]:
    uri, password = neo4j_server
    out = []
    for _ in range(WORKERS):
        conn = await Neo4jConnection.connect(uri, password=password)
        out.append(Memory(GraphStore(conn), HashingEmbeddings()))
    yield out
    for worker in out:
        await worker.close()


class LeaseLog:
    """Records when each lease was held (acquired → released), by wrapping :class:`Lease`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held: list[tuple[str, float, float]] = []
        acquire, release = Lease.acquire.__func__, Lease.release  # type: ignore[attr-defined]
        log = self

        async def acquire_logged(cls: type[Lease], *args: Any, **kwargs: Any) -> Lease:
            lease: Lease = await acquire(cls, *args, **kwargs)
            setattr(lease, "logged_at", time.monotonic())  # noqa: B010 — a test-only mark on the instance
            return lease

        async def release_logged(self: Lease, state: dict[str, Any] | None = None) -> None:
            released = time.monotonic()  # before the release: the next holder cannot start earlier
            await release(self, state)
            log.held.append((self.scope.key, self.logged_at, released))  # type: ignore[attr-defined]

        monkeypatch.setattr(Lease, "acquire", classmethod(acquire_logged))
        monkeypatch.setattr(Lease, "release", release_logged)

    def overlaps(self) -> list[tuple[str, str]]:
        found = []
        for i, (a, a0, a1) in enumerate(self.held):
            for b, b0, b1 in self.held[i + 1 :]:
                related = a == b or b.startswith(a + "/") or a.startswith(b + "/")
                if related and a0 < b1 and b0 < a1:
                    found.append((a, b))
        return found


async def test_fifty_concurrent_clients_lose_no_update_and_share_no_lease(
    workers: list[Memory], tenant: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    leases = LeaseLog(monkeypatch)
    shared = tenant.child("user", "ana")  # agent turns
    counted = tenant.child("user", "cy")  # recalls and edge upserts only: their counts are exact
    siblings = [tenant.child("user", f"sib{i}") for i in range(SIBLINGS)]
    first = workers[0]
    city = await first.remember(counted, "Ana's home city", "Ana lives in Lisbon by the river Tagus.")
    boat = await first.remember(counted, "Ana's boat", "Ana owns a red sailing boat called Gaivota.")
    link = await internals(first).store.link(counted, city.id, boat.id, Relationship.RELATES_TO)
    seen_city = 0

    async def recall(i: int) -> None:
        nonlocal seen_city
        result = await workers[i % WORKERS].recall(counted, "Where does Ana live? Lisbon by the river Tagus")
        seen_city += any(item.node.id == city.id for item in result.items)

    async def upsert_link(i: int) -> None:
        await internals(workers[i % WORKERS]).store.link(counted, city.id, boat.id, Relationship.RELATES_TO)

    async def ingest(i: int) -> None:
        await workers[i % WORKERS].ingest(siblings[i % SIBLINGS], CONVERSATION)

    agents = [Agent(w, ScriptedModel(["Noted, thank you."], cycle=True), AgentConfig()) for w in workers]
    replies: list[str] = []

    async def turn(i: int) -> None:
        scope = shared if i % 2 else siblings[i % SIBLINGS]
        response = await agents[i % WORKERS].run(scope, f"Message {i}: I like sailing.")
        assert response.errors == [], response.errors
        replies.append(response.text)

    outcomes: dict[str, int] = {"completed": 0, "busy": 0}

    async def consolidate(i: int) -> None:
        scope = tenant if i == 0 else siblings[i % SIBLINGS]
        try:
            report = await SleepConsolidator.for_memory(workers[i % WORKERS]).run(scope)
        except AlreadyRunningError:
            outcomes["busy"] += 1
            return
        assert report.error is None
        outcomes["completed"] += 1

    jobs = (
        [recall(i) for i in range(RECALLS)]
        + [upsert_link(i) for i in range(LINKS)]
        + [ingest(i) for i in range(INGESTS)]
        + [turn(i) for i in range(TURNS)]
        + [consolidate(i) for i in range(RUNS)]
    )
    assert len(jobs) == CLIENTS == 50
    await asyncio.gather(*jobs)  # any error here (a deadlock included) reached a caller: the test fails
    for worker in workers:
        await internals(worker).engine.drain()
    for agent in agents:
        await agent.drain()

    assert replies == ["Noted, thank you."] * TURNS
    assert outcomes["completed"] >= 1 and outcomes["completed"] + outcomes["busy"] == RUNS
    assert leases.overlaps() == [], "two runs held leases on overlapping scopes at once"

    stored_city = await internals(first).store.get_node(counted, city.id)
    assert stored_city is not None and stored_city.access_count == seen_city, "a lost access-count update"
    edges = [
        e
        for e in await internals(first).store.query_edges(
            counted, {"relationship": Relationship.RELATES_TO.value}, limit=1000
        )
        if (e.source, e.target) == (city.id, boat.id)
    ]
    assert len(edges) == 1, f"{len(edges)} edges for one (source, target, type)"
    assert edges[0].weight == pytest.approx(link.weight * (LINKS + 1)), "a lost edge-weight update"
    for sibling in siblings:
        episodes = [
            n for n in await internals(first).store.query_subtree(sibling, limit=None) if n.layer is Layer.EPISODIC
        ]
        texts = {t["text"] for t in CONVERSATION}
        ingested = [n for n in episodes if n.content in texts]
        assert len(ingested) == len(texts), f"{sibling.key}: {len(ingested)} nodes for {len(texts)} turns"
