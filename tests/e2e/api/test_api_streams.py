"""Subscriptions over graphql-transport-ws (a real websocket client) and the SSE turn route."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Server, Tenant

TURN = """subscription($scope: String!, $message: String!) { turn(scope: $scope, message: $message) {
  __typename
  ... on MessageStartEvent { messageId model }
  ... on TextDeltaEvent { text }
  ... on ActivationEvent { nodes { id score } }
  ... on MemoryExtractedEvent { ops strategy }
  ... on MessageEndEvent { stopReason }
  ... on BudgetExceeded { scopeKey used budget retryAfter }
} }"""


@contextmanager
def open_ws(server: Server, params: dict[str, Any]) -> Iterator[ClientConnection]:
    """A graphql-transport-ws connection that has sent ``connection_init`` with ``params``."""
    with connect(server.ws_url, subprotocols=["graphql-transport-ws"], open_timeout=30) as ws:  # type: ignore[list-item]
        ws.send(json.dumps({"type": "connection_init", "payload": params}))
        yield ws


def subscribe(ws: ClientConnection, query: str, **variables: Any) -> list[dict[str, Any]]:
    ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query, "variables": variables}}))
    out: list[dict[str, Any]] = []
    while True:
        msg = json.loads(ws.recv(timeout=120))
        if msg["type"] == "next":
            out.append(msg["payload"])
        elif msg["type"] in ("complete", "error"):
            if msg["type"] == "error":
                out.append({"errors": msg["payload"]})
            return out


async def test_turn_subscription_streams_typed_events(api_server: Server, api_tenant: Tenant) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.WRITER)
    with open_ws(api_server, {"authorization": f"Bearer {token}"}) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
        payloads = subscribe(ws, TURN, scope=t.user.key, message="My dog is called Rex.")
    events = [p["data"]["turn"] for p in payloads]
    kinds = [e["__typename"] for e in events]
    assert kinds[0] in ("MessageStartEvent", "ActivationEvent")
    assert "TextDeltaEvent" in kinds and kinds[-1] == "MessageEndEvent"
    reply = "".join(e["text"] for e in events if e["__typename"] == "TextDeltaEvent")
    assert "Rex" in reply
    extracted = [e for e in events if e["__typename"] == "MemoryExtractedEvent"]
    assert extracted and extracted[0]["ops"]


async def test_websocket_needs_a_key_in_connection_params(api_server: Server, api_tenant: Tenant) -> None:
    with open_ws(api_server, {"authorization": "Bearer hg_forged"}) as ws, pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    with open_ws(api_server, {}) as ws, pytest.raises(ConnectionClosed):
        ws.recv(timeout=30)


async def test_the_legacy_graphql_ws_protocol_is_refused(api_server: Server) -> None:
    with (
        pytest.raises(Exception),  # noqa: B017 - the handshake fails, whatever the client raises
        connect(api_server.ws_url, subprotocols=["graphql-ws"], open_timeout=30) as ws,  # type: ignore[list-item]
    ):
        ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        ws.recv(timeout=10)


async def test_a_reader_cannot_run_a_turn_and_a_sibling_scope_is_not_found(
    api_server: Server, api_tenant: Tenant
) -> None:
    t = api_tenant
    reader = await t.key(t.user, Role.READER)
    with open_ws(api_server, {"apiKey": reader}) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
        [denied] = subscribe(ws, TURN, scope=t.user.key, message="hello")
        assert denied["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    writer = await t.key(t.user, Role.WRITER)
    with open_ws(api_server, {"apiKey": writer}) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
        [hidden] = subscribe(ws, TURN, scope=t.sibling.key, message="hello")
        assert hidden["errors"][0]["extensions"]["code"] == "NOT_FOUND"


async def test_sse_turn_stream_and_budget(api_tenant: Tenant) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.WRITER)
    headers = {"Authorization": f"Bearer {token}"}
    body = {"scope": t.user.key, "message": "I live in Lisbon."}
    with (
        httpx.Client(base_url=t.url, headers=headers, timeout=120) as http,
        http.stream("POST", "/v1/turn/stream", json=body) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = [f for f in response.read().decode().split("\n\n") if f.strip()]
    names = [f.split("\n")[0].removeprefix("event: ") for f in frames]
    assert "text_delta" in names and names[-1] == "message_end"
    text = "".join(json.loads(f.split("\n")[1].removeprefix("data: "))["text"] for f in frames
                   if f.startswith("event: text_delta"))  # fmt: skip
    assert "Lisbon" in text

    from datetime import UTC, datetime

    day = datetime.now(UTC).strftime("%Y-%m-%d")
    await t.repo.spend_tokens(f"{t.org.key}|{day}", t.org.key, day, 10_000_000, 0.0)
    with httpx.Client(base_url=t.url, headers=headers, timeout=60) as http:
        over = http.post("/v1/turn/stream", json=body)
        assert over.status_code == 429 and int(over.headers["retry-after"]) > 0
        assert over.json()["error"]["code"] == "BUDGET_EXCEEDED"
        typed = http.post(
            "/graphql",
            json={
                "query": """mutation($s: String!) { turn(scope: $s, message: "hi") {
                  __typename ... on BudgetExceeded { scopeKey used budget } } }""",
                "variables": {"s": t.user.key},
            },
        ).json()["data"]["turn"]
    assert typed["__typename"] == "BudgetExceeded" and typed["scopeKey"] == t.org.key
    assert typed["used"] >= typed["budget"]


async def test_turn_mutation(api_tenant: Tenant) -> None:
    t = api_tenant
    client = t.client(await t.key(t.user, Role.WRITER))
    turn = client.data(
        """mutation($s: String!) { turn(scope: $s, message: "I work at Tidewater Labs.") {
          __typename ... on TurnSuccess { reply sessionId scopeKey modelCalls usage { inputTokens outputTokens }
          extracted { ops } errors { stage } timings } } }""",
        s=t.user.key,
    )["turn"]
    assert turn["__typename"] == "TurnSuccess" and "Tidewater" in turn["reply"]
    assert turn["scopeKey"] == t.user.key and turn["modelCalls"] >= 1
    assert turn["extracted"]["ops"]


async def test_consolidation_progress_yields_runs_as_they_finish(api_server: Server, api_tenant: Tenant) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.WRITER)
    client = t.client(token)
    consolidate = """mutation($s: String!) { consolidate(scope: $s, mode: QUICK) {
      ... on ConsolidationReport { runId } } }"""
    first = client.data(consolidate, s=t.user.key)["consolidate"]["runId"]
    query = """subscription($s: String!) { consolidationProgress(scope: $s, includeRecent: 1) {
      runId entryPoint status phases { name status } } }"""
    with open_ws(api_server, {"authorization": f"Bearer {token}"}) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
        ws.send(
            json.dumps({"id": "p", "type": "subscribe", "payload": {"query": query, "variables": {"s": t.user.key}}})
        )
        recent = json.loads(ws.recv(timeout=60))
        assert recent["type"] == "next"
        assert recent["payload"]["data"]["consolidationProgress"]["runId"] == first
        second = client.data(consolidate, s=t.user.key)["consolidate"]["runId"]
        arrived = json.loads(ws.recv(timeout=60))["payload"]["data"]["consolidationProgress"]
        assert arrived["runId"] == second and arrived["entryPoint"] == "quick_nap"
        ws.send(json.dumps({"id": "p", "type": "complete"}))
