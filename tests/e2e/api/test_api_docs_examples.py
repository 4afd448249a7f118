"""Every ```graphql block of README.md and docs/guides/ runs against the API as its page shows it
(each operation of it: queries and mutations over HTTP, subscriptions over graphql-transport-ws),
with a writer key of the pages' tenant ``org:acme`` made the test's own, and a memory of it for
the operations that take an ``$id``; each comes back without an error."""

from __future__ import annotations

import json
import re

from graphql import OperationType, parse
from graphql.language import OperationDefinitionNode

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Server, Tenant
from tests.e2e.api.test_api_graph import remember
from tests.e2e.api.test_api_streams import open_ws, subscribe
from tests.support.pages import unmarked

EXAMPLES = unmarked("graphql")


def _operations(query: str) -> list[tuple[str | None, OperationType, list[str]]]:
    """(name, kind, variable names) of each operation of a document."""
    return [
        (d.name.value if d.name else None, d.operation, [v.variable.name.value for v in d.variable_definitions or ()])
        for d in parse(query).definitions
        if isinstance(d, OperationDefinitionNode)
    ]


async def test_every_graphql_block_of_the_pages_runs(api_server: Server, api_tenant: Tenant) -> None:
    t = api_tenant
    assert {b.page for b in EXAMPLES} >= {"README.md", "docs/guides/api.md"}
    token = await t.key(t.org, Role.WRITER, name="docs examples")
    client = t.client(token)
    for user in ("ana", "bob"):  # what the pages' queries ask about is there
        remember(client, f"{t.org.key}/user:{user}", layer="SEMANTIC", label="pet", content=f"{user}'s cat is Miso.")
    a_memory = remember(client, f"{t.org.key}/user:ana", layer="SEMANTIC", label="home", content="Ana lives in Porto.")
    values = {"id": a_memory["id"], "after": None}
    ran: list[str] = []
    for block in EXAMPLES:
        query = re.sub(r"\borg:acme\b", t.org.key, block.code)
        assert query != block.code, f"{block.where}: the pages' examples work in org:acme"
        for name, kind, variables in _operations(query):
            where = f"{block.where} {name or kind.value}"
            given = {v: values[v] for v in variables}
            if kind is OperationType.SUBSCRIPTION:
                with open_ws(api_server, {"authorization": f"Bearer {token}"}) as ws:
                    assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
                    payloads = subscribe(ws, query, **given)
                assert payloads and all("errors" not in p for p in payloads), (where, payloads)
            else:
                response = client.http.post(
                    "/graphql", json={"query": query, "variables": given, "operationName": name}
                )
                result = response.json()
                assert response.status_code == 200 and "errors" not in result and result["data"], (where, result)
                failed = [
                    v for v in result["data"].values() if isinstance(v, dict) and "Error" in v.get("__typename", "")
                ]
                assert not failed, (where, failed)
            ran.append(where)
    print(*ran, sep="\n")
    assert any("subscription" in r for r in ran) and len(ran) >= 6
