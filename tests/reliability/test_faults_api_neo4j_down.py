"""Issue 13 #1 at the API: SIGKILL the Neo4j under a running API while writes stream in. Requests
caught by the crash and made while it is down are answered 503 with ``Retry-After`` and no
internals (no traceback, no URI); ``/readyz`` says unavailable; once the server is back the same
API process serves again by itself (the driver reconnects), and every write it acknowledged is
there. The library alone raises one retryable error while the database is down and recovers too."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from hippograph.app.access.keys import Role, create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import StoreUnavailableError
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.e2e.api.harness import Client, start_server
from tests.reliability.crashable import CrashableNeo4j
from tests.support.memory_internals import internals

REMEMBER = """mutation($s: String!, $i: RememberInput!) { remember(scope: $s, input: $i) {
  __typename ... on MemoryPayload { memory { id } } } }"""
INTERNALS = ("Traceback", 'File "', "bolt://", "neo4j.exceptions", "ServiceUnavailable")


def _code(body: dict[str, Any]) -> str | None:
    """The error code of a GraphQL error body, or of the API's own (key checks before GraphQL runs)."""
    if body.get("errors"):
        code = body["errors"][0].get("extensions", {}).get("code")
    else:
        code = body.get("error", {}).get("code")
    return str(code) if code is not None else None


class Writer(threading.Thread):
    """Posts ``remember`` mutations back to back; sorts every answer."""

    def __init__(self, client: Client, scope: Scope) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.scope = scope
        self.acknowledged: list[str] = []
        self.outcomes: Counter[str] = Counter()
        self.unexpected: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            i += 1
            fact = {"layer": "SEMANTIC", "label": f"fact {i}", "content": f"Ana's numbered fact {i}."}
            response = self.client.post(REMEMBER, s=self.scope.key, i=fact)
            self.sort(response)

    def sort(self, response: httpx.Response) -> None:
        body = response.text
        if any(s in body for s in INTERNALS):
            self.unexpected.append(f"{response.status_code} leaks internals: {body[:300]}")
        elif response.status_code == 503:
            ok = response.headers.get("Retry-After", "").isdigit() and _code(response.json()) == "UNAVAILABLE"
            self.outcomes["503"] += 1
            if not ok:
                self.unexpected.append(f"503 without Retry-After or code: {body[:300]} {response.headers}")
        elif response.status_code == 200 and not response.json().get("errors"):
            self.acknowledged.append(response.json()["data"]["remember"]["memory"]["id"])
            self.outcomes["200"] += 1
        else:
            self.unexpected.append(f"{response.status_code}: {body[:300]}")

    def wait_for(self, outcome: str, more_than: int, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while self.outcomes[outcome] <= more_than:
            assert time.monotonic() < deadline, f"no {outcome} answer within {timeout}s: {self.outcomes}"
            assert self.is_alive(), "the writer stopped"
            time.sleep(0.05)


async def test_api_answers_503_while_neo4j_is_down_and_recovers_by_itself(
    crashable: CrashableNeo4j, crash_conn: Neo4jConnection, revive: CrashableNeo4j, tmp_path: Path
) -> None:
    org = Scope.root("org", f"crash-api-{uuid.uuid4().hex[:8]}")
    user = org.child("user", "ana")
    _, token = await create_key(KeyRepository(crash_conn), org, Role.WRITER)
    server = start_server(
        (crashable.uri, crashable.password), tmp_path, store_retry_seconds=1.0, rate_limit_per_minute=1_000_000
    )
    writer = Writer(Client(server.url, token), user)
    try:
        writer.start()
        writer.wait_for("200", 10)
        crashable.kill()  # a request is in flight: writes go back to back
        writer.wait_for("503", 2)
        ready = httpx.get(server.url + "/readyz", timeout=60)
        assert ready.status_code == 503 and ready.headers["Retry-After"].isdigit()
        before = writer.outcomes["200"]
        crashable.start()
        writer.wait_for("200", before + 10)  # the same API process, no restart
    finally:
        writer.stop.set()
        writer.join(timeout=120)
        server.stop()
    assert writer.unexpected == []
    stored = {n.id for n in await GraphStore(crash_conn).query_subtree(org, limit=None)}
    lost = set(writer.acknowledged) - stored
    assert not lost, f"{len(lost)} acknowledged writes lost"
    await GraphStore(crash_conn).delete_subtree(org)


async def test_library_raises_one_retryable_error_while_down_and_recovers(
    crashable: CrashableNeo4j, crash_conn: Neo4jConnection, revive: CrashableNeo4j
) -> None:
    memory = Memory(GraphStore(crash_conn), HashingEmbeddings())
    scope = Scope.root("org", f"crash-lib-{uuid.uuid4().hex[:8]}")
    fact = await memory.remember(scope, "Ana's city", "Ana lives in Lisbon.")
    crashable.kill()
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        "remember": lambda: memory.remember(scope, "Ana's dog", "Ana's dog is Rex."),
        "recall": lambda: memory.recall(scope, "Where does Ana live?"),
        "get": lambda: internals(memory).store.get_node(scope, fact.id),
        "erase": lambda: memory.forget(scope),
    }
    for name, call in calls.items():
        with pytest.raises(StoreUnavailableError) as failure:
            await call()
        assert failure.value.retryable, name
        assert "Lisbon" not in str(failure.value), "user content in a store error"
    crashable.start()
    recalled = await memory.recall(scope, "Where does Ana live?")  # the same connection, reconnected
    assert [item.node.id for item in recalled.items][:1] == [fact.id]
    await memory.forget(scope)
