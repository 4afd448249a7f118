"""Namespaces over GraphQL: a namespaced key (…/@support) in every scope argument, the scope
query's namespace argument and the tenant accessors; a key bound to one namespace reaches
neither another one nor its path."""

from __future__ import annotations

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Tenant
from tests.e2e.api.test_api_graph import remember

VISIBLE = """query($scope: String!) {
  memories(scope: $scope, where: {listing: VISIBLE}, first: 50) { edges { node { content scopeKey } } } }"""
RECALL = """query($scope: String!) {
  recall(scope: $scope, query: "Which tea does Ana drink?", first: 20) {
    items { scopeDistance memory { content } } } }"""


async def test_namespaces_partition_a_path_over_the_api(api_tenant: Tenant) -> None:
    t = api_tenant
    client = t.client(await t.key(t.org, Role.ADMIN))
    support, sales = t.user.in_namespace("support"), t.user.in_namespace("sales")
    remember(client, t.user.key, layer="SEMANTIC", label="tea", content="Ana drinks green tea.")
    remember(client, support.key, layer="SEMANTIC", label="tea ticket", content="Ana's tea order arrived broken.")
    remember(client, sales.key, layer="SEMANTIC", label="tea lead", content="Ana may buy a tea subscription.")

    listed = client.data(VISIBLE, scope=support.key)["memories"]["edges"]
    assert sorted(e["node"]["scopeKey"] for e in listed) == sorted([t.user.key, support.key])
    recalled = client.data(RECALL, scope=sales.key)["recall"]["items"]
    contents = {i["memory"]["content"] for i in recalled}
    assert "Ana may buy a tea subscription." in contents
    assert contents <= {"Ana drinks green tea.", "Ana may buy a tea subscription."}
    assert {i["scopeDistance"] for i in recalled} == {0}
    plain = client.data(VISIBLE, scope=t.user.key)["memories"]["edges"]
    assert [e["node"]["scopeKey"] for e in plain] == [t.user.key]

    node = client.data(
        """query($k: String!) { scope(key: $k, namespace: "support") {
          key exists namespace tenantId subTenantId ancestors { key } } }""",
        k=t.user.key,
    )["scope"]
    assert node["key"] == support.key and node["exists"] and node["namespace"] == "support"
    assert node["tenantId"] == t.org.id and node["subTenantId"] == "ana"
    assert [a["key"] for a in node["ancestors"]] == [s.key for s in support.ancestors()[:-1]]
    root = client.data("query($k: String!) { scope(key: $k) { namespace subTenantId } }", k=t.org.key)["scope"]
    assert root == {"namespace": None, "subTenantId": None}

    bound = t.client(await t.key(support, Role.READER))
    mine = bound.data(VISIBLE, scope=support.key)["memories"]["edges"]
    assert len(mine) == 2
    for outside in (sales.key, t.user.key):
        body = bound.gql(VISIBLE, scope=outside)
        assert body.get("errors") and "not found" in body["errors"][0]["message"], body
    assert bound.data("query($k: String!) { scope(key: $k) { key } }", k=sales.key)["scope"] is None
