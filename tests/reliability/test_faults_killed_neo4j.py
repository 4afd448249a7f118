"""Issue 13 #1: SIGKILL the Neo4j process in the middle of a batch ingest, a consolidation run
and an agent turn, start it again on the same data folder, and check what survived. Every test
here kills the crashable server (:class:`CrashableNeo4j`), never the shared one."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.consolidation import ConsolidationConfig, RunStatus, SleepConsolidator
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import AlreadyRunningError, StoreUnavailableError
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.consolidation.sleep_helpers import NOW, snapshot
from tests.integration.consolidation.sleep_world import SOUL_SCHEMA, build_world, canonical
from tests.reliability.crashable import CrashableNeo4j
from tests.support.memory_internals import internals

TURNS = 1000
SESSIONS = 4
BATCH = 256  # ingest's batch: one transaction each


def _turns() -> list[dict[str, Any]]:
    return [
        {"turn_id": f"t{i:04d}", "session_id": f"s{i % SESSIONS}", "speaker": "Ana", "text": f"Remark number {i}."}
        for i in range(TURNS)
    ]


def _kill_soon(server: CrashableNeo4j, delay: float = 0.05) -> threading.Thread:
    def later() -> None:
        time.sleep(delay)
        server.kill()

    thread = threading.Thread(target=later)
    thread.start()
    return thread


async def _episodes(store: GraphStore, scope: Scope) -> int:
    return len([n for n in await store.query_subtree(scope, limit=None) if n.layer is Layer.EPISODIC])


async def _next_edges(store: GraphStore, scope: Scope) -> int:
    return len(await store.query_edges(scope, {"relationship": Relationship.NEXT.value}, limit=10 * TURNS))


async def test_ingest_killed_mid_batch_keeps_whole_batches_and_a_retry_completes_it(
    crashable: CrashableNeo4j, crash_conn: Neo4jConnection, revive: CrashableNeo4j
) -> None:
    memory = Memory(GraphStore(crash_conn), HashingEmbeddings())
    scope = Scope.root("org", f"crash-{uuid.uuid4().hex[:8]}")
    acknowledged: list[int] = []
    killer: list[threading.Thread] = []

    def progress(done: int, total: int) -> None:
        acknowledged.append(done)
        if len(acknowledged) == 1:
            killer.append(_kill_soon(crashable))  # lands while the next batch is being written

    with pytest.raises(StoreUnavailableError) as failure:
        await memory.ingest(scope, _turns(), progress=progress)
    killer[0].join()
    assert failure.value.retryable
    assert acknowledged and acknowledged[-1] < TURNS

    crashable.start()
    stored = await _episodes(internals(memory).store, scope)
    assert stored >= acknowledged[-1], "an acknowledged batch was lost"
    boundaries = {min(TURNS, k * BATCH) for k in range(TURNS // BATCH + 2)}
    assert stored in boundaries, f"{stored} turns stored: a partial batch"

    stored_nodes = await memory.ingest(scope, _turns())  # the idempotent retry
    assert len(stored_nodes) == TURNS
    assert await _episodes(internals(memory).store, scope) == TURNS
    assert await _next_edges(internals(memory).store, scope) == TURNS - SESSIONS
    await memory.forget(scope)


class KillSwitch:
    """A connection that SIGKILLs the server just after ``target`` starts (the statement is in flight)."""

    def __init__(self, conn: Neo4jConnection, server: CrashableNeo4j, target: object) -> None:
        self._conn = conn
        self.server = server
        self.target = target
        self.thread: threading.Thread | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def _arm(self, query: object) -> None:
        if query is self.target and self.thread is None:
            self.thread = _kill_soon(self.server)

    async def run_autocommit(self, query: Any, **params: Any) -> list[dict[str, Any]]:
        self._arm(query)
        return await self._conn.run_autocommit(query, **params)

    async def read(self, query: Any, **params: Any) -> list[dict[str, Any]]:
        self._arm(query)
        return await self._conn.read(query, **params)

    async def write(self, query: Any, **params: Any) -> list[dict[str, Any]]:
        self._arm(query)
        return await self._conn.write(query, **params)


async def test_consolidation_killed_mid_run_resumes_to_the_uninterrupted_end_state(
    crashable: CrashableNeo4j, crash_conn: Neo4jConnection, revive: CrashableNeo4j
) -> None:
    from hippograph.consolidation.queries import ConsolidationQuery

    store = GraphStore(crash_conn)
    tenant = Scope.root("org", f"crash-{uuid.uuid4().hex[:8]}")
    calm, stormy = tenant.child("user", "a"), tenant.child("user", "b")
    await build_world(store, crash_conn, calm, "A" + tenant.id, seed=tenant.id)
    await build_world(store, crash_conn, stormy, "B" + tenant.id, seed=tenant.id)
    config = ConsolidationConfig(soul_schema=SOUL_SCHEMA, lease_ttl=600.0, wait_timeout=1.0)
    await SleepConsolidator(crash_conn, config, clock=lambda: NOW).run(calm)

    switch = KillSwitch(crash_conn, crashable, ConsolidationQuery.MERGE_FACTS)
    consolidator = SleepConsolidator(switch, config, clock=lambda: NOW)  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailableError):
        await consolidator.run(stormy)  # killed mid-run: its lease could not be given back
    assert switch.thread is not None
    switch.thread.join()

    crashable.start()
    elsewhere = SleepConsolidator(crash_conn, config, clock=lambda: NOW)
    with pytest.raises(AlreadyRunningError):  # another process cannot know the run ended: lease_ttl holds
        await elsewhere.run(stormy, wait=True)
    rerun = await consolidator.run(stormy)  # the same consolidator knows: its lease back at once, no wait
    assert rerun.status is RunStatus.COMPLETED
    assert canonical(await snapshot(crash_conn, stormy), stormy, "B" + tenant.id) == canonical(
        await snapshot(crash_conn, calm), calm, "A" + tenant.id
    )
    await store.delete_subtree(tenant)


async def test_agent_turn_killed_mid_reply_delivers_the_reply_and_reports_the_lost_background_once(
    crashable: CrashableNeo4j, crash_conn: Neo4jConnection, revive: CrashableNeo4j
) -> None:
    memory = Memory(GraphStore(crash_conn), HashingEmbeddings())
    scope = Scope.root("org", f"crash-{uuid.uuid4().hex[:8]}").child("user", "ana")
    await memory.remember(scope, "Ana's city", "Ana lives in Lisbon.")
    killed: list[threading.Thread] = []

    def reply(request: object) -> str:
        if not killed:
            killed.append(_kill_soon(crashable, 0.0))  # the database dies while the reply streams
        return "You live in Lisbon."

    agent = Agent(memory, ScriptedModel(reply, delay=0.01), AgentConfig())
    response = await agent.run(scope, "Where do I live?")
    killed[0].join()
    assert response.text == "You live in Lisbon."
    assert response.activations, "hydrate ran before the crash"
    [report] = await agent.drain()
    assert report.errors, "the background writes of the turn failed while the database was down"
    assert {e.error_type for e in report.errors} == {"StoreUnavailableError"}

    crashable.start()
    later = await agent.run(scope, "Thanks!", session_id=response.session_id)
    assert later.text == "You live in Lisbon."
    assert [e.error_type for e in later.errors] == [e.error_type for e in report.errors]  # told once, then clean
    await agent.drain()
    third = await agent.run(scope, "Bye.", session_id=response.session_id)
    assert third.errors == []
    await agent.drain()
    await memory.forget(Scope.parse(scope.ancestor_keys()[0]))
