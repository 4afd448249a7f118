"""The API on a routing URI (``neo4j://``, as for Aura or a cluster): what one request
remembers, the next one recalls and lists."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import pytest

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Server, Tenant, start_server
from tests.support.memory_internals import internals

REMEMBER = """mutation($s: String!, $c: String!) {
  remember(scope: $s, input: {layer: SEMANTIC, label: "Ana's city", content: $c}) {
    __typename ... on MemoryPayload { memory { id } } } }"""
RECALL = 'query($s: String!) { recall(scope: $s, query: "Where does Ana live?", first: 3) { items { memory { id } } } }'
LIST = "query($s: String!) { memories(scope: $s, first: 10) { edges { node { id } } } }"


@pytest.fixture(scope="module")
def routed_server(neo4j_server: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    uri, password = neo4j_server
    scheme, rest = uri.split("://", 1)
    routing = {"bolt": "neo4j", "bolt+s": "neo4j+s", "bolt+ssc": "neo4j+ssc"}.get(scheme, scheme)
    server = start_server((f"{routing}://{rest}", password), tmp_path_factory.mktemp("routed-api"))
    yield server
    server.stop()


async def test_a_write_is_read_back_by_the_next_request(routed_server: Server, api_tenant: Tenant) -> None:
    services = routed_server.server.config.app.state.services
    assert isinstance(internals(services.memory).store.conn.driver, neo4j.AsyncNeo4jDriver)
    api_tenant.url = routed_server.url
    client = api_tenant.client(await api_tenant.key(api_tenant.org, Role.WRITER))
    scope = api_tenant.user.key
    written = client.data(REMEMBER, s=scope, c="Ana lives in Porto.")["remember"]
    assert written["__typename"] == "MemoryPayload"
    node = written["memory"]["id"]
    recalled = client.data(RECALL, s=scope)["recall"]["items"]
    assert node in [i["memory"]["id"] for i in recalled]
    assert node in [e["node"]["id"] for e in client.data(LIST, s=scope)["memories"]["edges"]]
