"""The auth matrix: each role × keys bound to the parent, the same, a child and a sibling scope of
the scope acted on — who reads and writes what. A key never learns anything of a scope outside
its reach: not ids, not counts, not whether it exists (the answer is the one a scope that never
existed gets)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Client, Tenant

LIST = """query($s: String!) { memories(scope: $s, where: {listing: VISIBLE}, first: 50) {
  totalCount edges { node { id } } } }"""
NODE = "query($id: ID!) { node(id: $id) { id neighbours { memory { id } } } }"
WRITE = """mutation($s: String!) { remember(scope: $s, input: {layer: SEMANTIC, label: "probe", content: "probe"}) {
  __typename } }"""
FORGET = 'mutation($s: String!) { forget(scope: $s, confirm: "not the key") { __typename } }'


def memory_line(memory_id: str, scope_key: str, text: str) -> dict[str, Any]:
    return {"type": "memory", "memory": {"id": memory_id, "layer": "semantic", "label": text, "content": text,
                                         "scope_key": scope_key}}  # fmt: skip


def code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors")
    return errors[0]["extensions"]["code"] if errors else None


@pytest.fixture
async def seeded(api_tenant: Tenant) -> dict[str, str]:
    """One memory in the org (A), the user (B), the user's conversation (C) and the sibling user
    (D), and an edge A–D written in the sibling's scope."""
    t = api_tenant
    suffix = t.org.id
    ids = {"A": f"a{suffix}", "B": f"b{suffix}", "C": f"c{suffix}", "D": f"d{suffix}"}
    lines = [
        memory_line(ids["A"], t.org.key, "org policy"),
        memory_line(ids["B"], t.user.key, "ana fact"),
        memory_line(ids["C"], t.conversation.key, "conversation note"),
        memory_line(ids["D"], t.sibling.key, "bob secret"),
        {"type": "edge", "edge": {"id": f"e{suffix}", "source": ids["D"], "target": ids["A"],
                                  "relationship": "RELATES_TO", "scope_key": t.sibling.key}},
    ]  # fmt: skip
    admin = t.client(await t.key(t.org, Role.ADMIN))
    response = admin.http.post("/v1/import", content="\n".join(json.dumps(x) for x in lines))
    assert response.status_code == 200, response.text
    return ids


BOUND = ("parent", "same", "child", "sibling")
# which memories a key bound there may see by id (A org, B user, C conversation, D sibling)
SEES = {"parent": "ABCD", "same": "ABC", "child": "ABC", "sibling": "AD"}


async def test_who_reads_and_writes_what(api_tenant: Tenant, seeded: dict[str, str]) -> None:
    t = api_tenant
    bound_scope = {"parent": t.org, "same": t.user, "child": t.conversation, "sibling": t.sibling}
    clients = {(role, where): t.client(await t.key(bound_scope[where], role)) for role in Role for where in BOUND}
    for (role, where), client in clients.items():  # reads first: the writes below add memories
        label = f"{role.value} key bound to the {where} scope"
        listing = client.gql(LIST, s=t.user.key)
        if where in ("parent", "same"):
            got = {e["node"]["id"] for e in listing["data"]["memories"]["edges"]}
            assert got == {seeded["A"], seeded["B"]}, label
            assert listing["data"]["memories"]["totalCount"] == 2, label
        else:
            assert code(listing) == "NOT_FOUND", label
        for name, memory_id in seeded.items():
            node = client.data(NODE, id=memory_id)["node"]
            assert (node is not None) == (name in SEES[where]), f"{label} reading {name}"
            if node is not None:
                neighbours = {n["memory"]["id"] for n in node["neighbours"]}
                assert neighbours <= {seeded[x] for x in SEES[where]}, f"{label}: neighbours of {name}"
                if name == "A" and "D" not in SEES[where]:
                    assert neighbours == set(), label

    for (role, where), client in clients.items():
        label = f"{role.value} key bound to the {where} scope"
        inside = where in ("parent", "same")
        write = client.gql(WRITE, s=t.user.key)
        if not inside:
            assert code(write) == "NOT_FOUND", label
        elif role is Role.READER:
            assert code(write) == "FORBIDDEN", label
        else:
            assert write["data"]["remember"]["__typename"] == "MemoryPayload", label
        forget = client.gql(FORGET, s=t.user.key)
        if not inside:
            assert code(forget) == "NOT_FOUND", label
        elif role is Role.ADMIN:
            assert forget["data"]["forget"]["__typename"] == "ForgetError", label
        else:
            assert code(forget) == "FORBIDDEN", label


async def test_another_tenant_learns_nothing(api_tenant: Tenant, seeded: dict[str, str]) -> None:
    t = api_tenant
    bob: Client = t.client(await t.key(t.sibling, Role.ADMIN))
    ghost = t.org.child("user", "never-existed")

    def same_answer(query: str, real: dict[str, Any], fake: dict[str, Any]) -> None:
        a = json.dumps(bob.gql(query, **real)).replace(t.user.key, "<scope>").replace(ghost.key, "<scope>")
        b = json.dumps(bob.gql(query, **fake)).replace(t.user.key, "<scope>").replace(ghost.key, "<scope>")
        a = a.replace(seeded["B"], "<id>")
        b = b.replace("nosuchmemory", "<id>")
        assert a.replace(str(_calls(a)), "") == b.replace(str(_calls(b)), ""), (a, b)

    same_answer(LIST, {"s": t.user.key}, {"s": ghost.key})
    same_answer(NODE, {"id": seeded["B"]}, {"id": "nosuchmemory"})
    same_answer("query($s: String!) { stats(scope: $s) { counts { total } } }", {"s": t.user.key}, {"s": ghost.key})
    same_answer("query($s: String!) { scope(key: $s) { key } }", {"s": t.user.key}, {"s": ghost.key})
    org_stats = bob.gql("query($s: String!) { stats(scope: $s) { counts { total } } }", s=t.org.key)
    assert code(org_stats) == "NOT_FOUND"
    own = bob.data("query($s: String!) { stats(scope: $s) { counts { total } } }", s=t.sibling.key)
    assert own["stats"]["counts"]["total"] == 1
    export = bob.http.get("/v1/export", params={"scope": t.user.key})
    assert export.status_code == 404
    assert seeded["B"] not in export.text


def _calls(text: str) -> int | None:
    body = json.loads(text)
    calls = body.get("extensions", {}).get("cypherCalls")
    return int(calls) if calls is not None else None
