"""``viewer``: a key learns its own scope and role and lists the scopes it acts on — its own
and those below it, never a sibling's or a parent's — keyset-paged by key."""

from __future__ import annotations

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Tenant
from tests.e2e.api.test_api_graph import remember

VIEWER = """query($first: Int!, $after: String) {
  viewer { keyId keyName role scopeKey
    scopes(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor } edges { cursor node { key depth } } } } }"""


async def test_viewer_names_the_key_and_lists_the_scopes_it_acts_on(api_tenant: Tenant) -> None:
    t = api_tenant
    admin = t.client(await t.key(t.org, Role.ADMIN))
    for scope in (t.org, t.user, t.conversation, t.sibling):
        remember(admin, scope.key, layer="WORKING", content=f"a note in {scope.key}")

    user = t.client(await t.key(t.user, Role.READER, name="ana's dashboard"))
    viewer = user.data(VIEWER, first=1)["viewer"]
    assert viewer["keyName"] == "ana's dashboard"
    assert viewer["role"] == "reader"
    assert viewer["scopeKey"] == t.user.key
    assert viewer["keyId"]

    keys: list[str] = []
    after = None
    while True:
        page = user.data(VIEWER, first=1, after=after)["viewer"]["scopes"]
        keys += [e["node"]["key"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert keys == [t.user.key, t.conversation.key]

    org_scopes = admin.data(VIEWER, first=10)["viewer"]["scopes"]["edges"]
    assert [e["node"]["key"] for e in org_scopes] == sorted([t.org.key, t.user.key, t.conversation.key, t.sibling.key])
    refused = user.gql(VIEWER, first=0)
    assert refused["errors"][0]["extensions"]["code"] == "BAD_INPUT"
