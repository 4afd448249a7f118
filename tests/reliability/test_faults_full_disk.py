"""A full disk: the data folder of a Neo4j of its own lives on a small tmpfs, one tenant writes
until the disk is full. The library raises one clear error (``StoreFailedError``, not
retryable: Neo4j refuses every transaction until it is restarted), the API answers 503
``STORE_FAILED`` with ``Retry-After`` and no internals, ``doctor`` warns about the disk, and
after space is freed and the server restarted every acknowledged write is there, the failed
batch is wholly there or wholly absent, the other tenant is byte for byte what it was, and
writes work again, through the library (the retried batch completes the ingest with exact
counts) and through the same API process."""

from __future__ import annotations

import shutil
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hippograph.app.access.keys import Role, create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.app.doctor import Status, check_data_disk
from hippograph.app.settings import Settings
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import StoreFailedError
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from tests.e2e.api.harness import Client, start_server
from tests.reliability.conftest import FAULT_RETRY_SECONDS
from tests.reliability.crashable import CrashableNeo4j
from tests.reliability.dump import full_dump, mentions
from tests.reliability.small_disk import fill, grow, small_disk
from tests.support.memory_internals import internals

DISK_MB = 24
FILLER_MB = 4  # written first, deleted to free space (what an operator would do first)
GROWN_MB = 160  # then the disk is grown: shutdown and recovery need room of about the filled data's size
BATCH = 50  # turns per ingest call: one transaction for the nodes
MAX_BATCHES = 200  # the disk fills long before (≈ 1 MiB a batch); more means it never did
REMEMBER = """mutation($s: String!, $i: RememberInput!) { remember(scope: $s, input: $i) {
  __typename ... on MemoryPayload { memory { id } } } }"""
RECALL = """query($s: String!) { recall(scope: $s, query: "Where does Ana live?", first: 3) {
  items { memory { id } } } }"""
INTERNALS = ("Traceback", 'File "', "bolt://", "Neo.", "No space", "Ana")


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CrashableNeo4j, Path]]:
    with small_disk(tmp_path_factory.mktemp("full-disk") / "data", DISK_MB) as disk:
        fill(disk / "filler", FILLER_MB)
        server = CrashableNeo4j(disk / "neo4j")
        server.start()
        try:
            yield server, disk
        finally:
            server.stop()
            for log in (disk / "neo4j" / "neo4j.log", disk / "neo4j" / "home" / "logs" / "debug.log"):
                if log.exists():  # kept for a failure's post-mortem: the tmpfs goes with the unmount
                    shutil.copy(log, disk.parent / log.name)


def _batch(number: int) -> list[dict[str, Any]]:
    padding = uuid.uuid4().hex * 60  # ≈ 2 KB a turn: the disk fills in a few dozen batches
    return [
        {"turn_id": f"b{number}-{i}", "session_id": f"s{number}", "speaker": "Ana", "text": f"{number}.{i} {padding}"}
        for i in range(BATCH)
    ]


async def _texts(store: GraphStore, scope: Scope) -> Counter[str]:
    return Counter(n.content for n in await store.query_subtree(scope, limit=None) if n.layer is Layer.EPISODIC)


def _rest(dump: Counter[str], key: str) -> Counter[str]:
    return Counter({line: count for line, count in dump.items() if not mentions(line, key)})


def _outage_answer(response: httpx.Response) -> str:
    """What a client reads from an answer while the database has failed: 503, a delay, a code."""
    assert response.status_code == 503, response.text[:300]
    assert response.headers.get("Retry-After", "").isdigit(), response.headers
    assert not [s for s in INTERNALS if s in response.text], response.text[:300]
    body = response.json()  # a GraphQL error, or the API's own when the key check already failed
    return str(body["errors"][0]["extensions"]["code"] if body.get("errors") else body["error"]["code"])


@pytest.mark.timeout(1800)  # fill, kill, recover and compare: ten minutes and more on a loaded 2-core machine
async def test_full_disk_raises_one_clear_error_and_loses_nothing_acknowledged(
    small_server: tuple[CrashableNeo4j, Path], tmp_path: Path
) -> None:
    server, disk = small_server
    conn = await Neo4jConnection.connect(server.uri, password=server.password, retry_time=FAULT_RETRY_SECONDS)
    api = None
    try:
        await migrate(conn)
        memory = Memory(GraphStore(conn), HashingEmbeddings())
        calm = Scope.root("org", f"calm-{uuid.uuid4().hex[:8]}")
        stormy = Scope.root("org", f"stormy-{uuid.uuid4().hex[:8]}")
        _, token = await create_key(KeyRepository(conn), stormy, Role.WRITER)
        api = start_server((server.uri, server.password), tmp_path, store_retry_seconds=1.0)
        client = Client(api.url, token)
        fact = await memory.remember(calm, "Ana's city", "Ana lives in Lisbon.")
        await memory.ingest(calm, _batch(-1))
        before = _rest(await full_dump(conn), stormy.key)

        acknowledged: list[list[dict[str, Any]]] = []
        failure: StoreFailedError | None = None
        for number in range(MAX_BATCHES):
            turns = _batch(number)
            try:
                await memory.ingest(stormy, turns)
            except StoreFailedError as exc:
                failure, failed = exc, turns
                break
            acknowledged.append(turns)
        assert failure is not None, f"{MAX_BATCHES} batches written and the {DISK_MB} MiB disk never filled"
        assert acknowledged, "the disk filled before the first batch: the test learnt nothing"
        assert not failure.retryable
        assert failure.code.startswith("Neo.DatabaseError.")
        assert "full or failing disk" in str(failure) and "restart" in str(failure)
        assert "Ana" not in str(failure), "a store error never carries user content"
        with pytest.raises(StoreFailedError):  # every later call says the same, reads too, until a restart
            await internals(memory).store.get_node(calm, fact.id)
        fact_input = {"layer": "SEMANTIC", "label": "Ana's dog", "content": "Ana's dog is called Rex."}
        assert _outage_answer(client.post(REMEMBER, s=stormy.key, i=fact_input)) == "STORE_FAILED"
        assert _outage_answer(client.post(RECALL, s=stormy.key)) == "STORE_FAILED"
        assert httpx.get(api.url + "/readyz", timeout=60).status_code == 503

        warning = check_data_disk(Settings(data_dir=disk))
        assert warning.status is Status.WARN and "StoreFailedError" in warning.detail

        # Space freed: the filler deleted and the disk grown. Deleting the filler alone is not
        # enough: the restart's recovery replays the transaction log into the store, which
        # needs room of about the log's size again.
        (disk / "filler").unlink()
        grow(disk, GROWN_MB)
        server.kill()  # a panicked database does not shut down cleanly (seen: out of heap); recovery replays the log
        server.start()
        assert check_data_disk(Settings(data_dir=disk)).status is Status.WARN  # still under 1 GiB: a small disk

        stored = await _texts(internals(memory).store, stormy)
        wanted = Counter(t["text"] for turns in acknowledged for t in turns)
        assert stored & wanted == wanted, "an acknowledged write was lost"
        extra = stored - wanted
        assert extra in (Counter(), Counter(t["text"] for t in failed)), "a partial batch survived the full disk"
        assert _rest(await full_dump(conn), stormy.key) == before, "the other tenant changed"

        await memory.ingest(stormy, failed)  # the retry, idempotent by turn id
        everything = wanted + Counter(t["text"] for t in failed)
        assert await _texts(internals(memory).store, stormy) == everything
        sessions = len(acknowledged) + 1
        next_edges = {"relationship": Relationship.NEXT.value}
        edges = await internals(memory).store.query_edges(stormy, next_edges, limit=10 * BATCH * sessions)
        assert len(edges) == sessions * (BATCH - 1)
        await memory.remember(calm, "Ana's dog", "Ana's dog is called Rex.")
        served = client.post(REMEMBER, s=stormy.key, i=fact_input)  # the same API process, serving again
        assert served.status_code == 200 and served.json()["data"]["remember"]["__typename"] == "MemoryPayload"
        assert await memory.forget(stormy) == sum(everything.values()) + 1
    finally:
        if api is not None:
            api.stop()
        await conn.close()
