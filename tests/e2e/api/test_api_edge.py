"""The HTTP edge over real HTTP, on a server with small limits: a body over the limit is 413
``PAYLOAD_TOO_LARGE`` before any route parses it (declared or chunked), the import has its own
larger limit, GraphQL's depth / token / alias limits refuse a document before it runs, every
response carries the security headers (GraphiQL's page a policy of its own), and a WebSocket
from another origin is refused unless the origin is on the allow-list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from hippograph.app.access.keys import Role
from hippograph.app.api.app import create_app
from hippograph.app.api.settings import ApiSettings
from hippograph.app.settings import Settings
from hippograph.errors import ConfigurationError
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.e2e.api.harness import Server, Tenant, start_server

MAX_BODY = 4096
MAX_IMPORT = 16384
ALLOWED = "https://dash.example.com"
LIMITS: dict[str, Any] = {
    "max_body_bytes": MAX_BODY,
    "max_import_bytes": MAX_IMPORT,
    "max_depth": 4,
    "max_tokens": 200,
    "max_aliases": 3,
    "ws_allowed_origins": [ALLOWED + "/"],
}
REMEMBER = 'mutation($s: String!, $c: String!) { remember(scope: $s, input: {layer: SEMANTIC, label: "pad", content: $c}) { __typename } }'  # noqa: E501
COUNT = "query($s: String!) { stats(scope: $s) { counts { total } } }"


@pytest.fixture(scope="module")
def edge_server(neo4j_server: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(neo4j_server, tmp_path_factory.mktemp("edge-api"), **LIMITS)
    yield server
    server.stop()


@pytest.fixture
def edge(edge_server: Server, api_tenant: Tenant) -> Tenant:
    """The test's tenant, served by the small-limits server."""
    api_tenant.url = edge_server.url
    return api_tenant


def too_large(response: httpx.Response, limit: int) -> None:
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["code"] == "PAYLOAD_TOO_LARGE", error
    assert error["message"].startswith(f"The request body is larger than {limit} bytes."), error


def total(client: Any, scope: Scope) -> int:
    return int(client.data(COUNT, s=scope.key)["stats"]["counts"]["total"])


async def test_a_body_over_the_limit_is_413_before_it_is_parsed(edge: Tenant) -> None:
    client = edge.client(await edge.key(edge.org, Role.ADMIN))
    client.data(REMEMBER, s=edge.user.key, c="small")
    before = total(client, edge.org)
    big = {"query": REMEMBER, "variables": {"s": edge.user.key, "c": "x" * MAX_BODY}}
    too_large(client.http.post("/graphql", json=big), MAX_BODY)
    # not valid JSON, and no key at all: the size is checked first
    too_large(httpx.post(edge.url + "/graphql", content=b"{" * (MAX_BODY + 1)), MAX_BODY)

    def chunks(total_bytes: int) -> Iterator[bytes]:  # no Content-Length: Transfer-Encoding: chunked
        body = json.dumps({"query": REMEMBER, "variables": {"s": edge.user.key, "c": "y" * total_bytes}}).encode()
        for i in range(0, len(body), 512):
            yield body[i : i + 512]

    response = client.http.post("/graphql", content=chunks(MAX_BODY), headers={"content-type": "application/json"})
    too_large(response, MAX_BODY)
    assert total(client, edge.org) == before, "a refused body was written"
    small = client.http.post("/graphql", content=chunks(100), headers={"content-type": "application/json"})
    assert small.status_code == 200 and not small.json().get("errors"), small.text
    assert total(client, edge.org) == before + 1


async def test_the_import_has_its_own_limit(edge: Tenant, store: GraphStore) -> None:
    client = edge.client(await edge.key(edge.org, Role.ADMIN))

    def line(i: int, pad: int) -> str:
        text = f"imported {i} " + "z" * pad
        memory = {"id": f"imp-{edge.org.id}-{i}", "layer": "semantic", "label": text[:30], "content": text}
        return json.dumps({"type": "memory", "memory": {**memory, "scope_key": edge.user.key}})

    fits = "\n".join(line(i, 2000) for i in range(5))  # over the GraphQL limit, under the import's
    assert MAX_BODY < len(fits) < MAX_IMPORT
    response = client.http.post("/v1/import", content=fits)
    assert response.status_code == 200, response.text
    refused = client.http.post("/v1/import", content="\n".join(line(i, 4000) for i in range(5, 10)))
    too_large(refused, MAX_IMPORT)
    assert "hippograph import" in refused.json()["error"]["message"]
    assert total(client, edge.org) == 5


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("{ viewer { scopes { edges { node { children { edges { node { key } } } } } } } }", "exceeds maximum"),
        ("{ " + " ".join(f"v{i}: viewer {{ role }}" for i in range(4)) + " }", "aliases found"),
        ("{ viewer { " + "role " * 200 + "} }", "more than 200 tokens"),
    ],
    ids=["depth", "aliases", "tokens"],
)
async def test_graphql_limits_refuse_a_document_before_it_runs(edge: Tenant, query: str, message: str) -> None:
    client = edge.client(await edge.key(edge.org, Role.READER))
    response = client.post(query)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body.get("data") is None, body
    [error] = body["errors"]
    assert message in error["message"] and error["extensions"]["code"] == "GRAPHQL_VALIDATION", error
    assert client.data("{ viewer { role } }")["viewer"]["role"] == "reader"  # within the limits: served


def security_headers(response: httpx.Response) -> dict[str, str]:
    assert response.headers["x-content-type-options"] == "nosniff", response.url
    assert response.headers["referrer-policy"] == "no-referrer", response.url
    assert response.headers["x-frame-options"] == "DENY", response.url
    policy = response.headers["content-security-policy"]
    directives = dict([*d.strip().split(" ", 1), ""][:2] for d in policy.split(";"))
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'", policy
    assert "unsafe-eval" not in policy, policy
    return directives


async def test_every_response_carries_the_security_headers(edge: Tenant) -> None:
    http = httpx.Client(base_url=edge.url, timeout=60)
    token = await edge.key(edge.org, Role.READER)
    answers = [
        http.get("/healthz"),
        http.get("/"),
        http.get("/no-such-page"),
        http.post("/graphql", json={"query": "{ viewer { role } }"}),  # 401
        http.post("/graphql", json={"query": "{ viewer { role } }"}, headers={"Authorization": f"Bearer {token}"}),
        http.post("/graphql", content=b"x" * (MAX_BODY + 1)),  # 413
        http.get("/v1/export", params={"scope": edge.org.key}, headers={"Authorization": f"Bearer {token}"}),
    ]
    assert [a.status_code for a in answers] == [200, 200, 404, 401, 200, 413, 200]
    for answer in answers:
        directives = security_headers(answer)
        assert directives["script-src"] == "'self'", answer.url
        assert directives["default-src"] == "'self'", answer.url

    ide = http.get("/graphql", headers={"Accept": "text/html"})
    assert ide.status_code == 200 and "graphiql" in ide.text.lower()
    scripts = security_headers(ide)["script-src"].split()
    assert scripts[0] == "'self'" and "'unsafe-inline'" not in scripts, scripts
    assert any(s.startswith("https://") for s in scripts) and any(s.startswith("'sha256-") for s in scripts), scripts


def ws_handshake(server: Server, token: str, origin: str | None) -> str:
    """Opens a graphql-transport-ws connection from ``origin`` and returns the first message type,
    or ``refused <status>`` when the handshake is refused."""
    try:
        with connect(
            server.ws_url,
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
            origin=origin,  # type: ignore[arg-type]
            open_timeout=30,
        ) as ws:
            ws.send(json.dumps({"type": "connection_init", "payload": {"apiKey": token}}))
            return str(json.loads(ws.recv(timeout=30))["type"])
    except InvalidStatus as exc:
        return f"refused {exc.response.status_code}"


async def test_a_websocket_from_another_origin_is_refused(edge: Tenant, edge_server: Server) -> None:
    token = await edge.key(edge.org, Role.READER)
    own = edge_server.url
    assert ws_handshake(edge_server, token, own) == "connection_ack"
    assert ws_handshake(edge_server, token, own.replace("127.0.0.1", "localhost")) == "refused 403"
    assert ws_handshake(edge_server, token, "https://evil.example.com") == "refused 403"
    assert ws_handshake(edge_server, token, "null") == "refused 403"
    assert ws_handshake(edge_server, token, ALLOWED) == "connection_ack"
    assert ws_handshake(edge_server, token, None) == "connection_ack"  # not a browser: the key decides


@pytest.mark.parametrize("origin", ["not an origin", "https://dash.example.com/app"])
def test_an_allowed_origin_that_is_not_one_stops_the_start(origin: str) -> None:
    with pytest.raises(ConfigurationError, match="HIPPOGRAPH_API_WS_ALLOWED_ORIGINS"):
        create_app(Settings(), ApiSettings(ws_allowed_origins=[origin]))


async def test_the_http_routes_check_the_key_before_they_read_the_input(edge: Tenant) -> None:
    """A body that is not JSON was answered 422 in FastAPI's shape, quoting it, before the key check."""
    secret = "not-json-sekrit-417"
    anonymous = httpx.post(edge.url + "/v1/turn/stream", content=secret.encode(), timeout=60)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "UNAUTHENTICATED", anonymous.text
    client = edge.client(await edge.key(edge.org, Role.WRITER))
    for response in (
        client.http.post("/v1/turn/stream", content=secret.encode()),
        client.http.post("/v1/turn/stream", json={"scope": edge.user.key, "message": secret, "extra": secret}),
        client.http.get("/v1/export"),
    ):
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "BAD_INPUT" and secret not in response.text, response.text
