"""Every query and mutation end to end: remember per layer, listings with keyset cursors, detail
(neighbours, supersession, retraction, audit), graph views, recall and context explained,
procedures, triggers, consolidation, stats, the scope tree and forget."""

from __future__ import annotations

import json
from typing import Any

from hippograph.app.access.keys import Role
from hippograph.store import GraphStore
from tests.e2e.api.harness import Client, Tenant

REMEMBER = """
mutation($scope: String!, $input: RememberInput!) {
  remember(scope: $scope, input: $input) {
    __typename
    ... on MemoryPayload { memory { id layer label content scopeKey supersededBy properties } }
    ... on InputError { field message }
  }
}"""


def remember(client: Client, scope: str, **fields: Any) -> dict[str, Any]:
    result = client.data(REMEMBER, scope=scope, input=fields)["remember"]
    assert result["__typename"] == "MemoryPayload", result
    memory: dict[str, Any] = result["memory"]
    return memory


async def test_remember_list_detail_and_graph_views(api_tenant: Tenant) -> None:
    t = api_tenant
    client = t.client(await t.key(t.org, Role.WRITER))
    user = t.user.key
    old = remember(
        client, user, layer="SEMANTIC", label="Ana's employer", content="Ana works at Orbital.", key="ana.job"
    )
    new = remember(
        client, user, layer="SEMANTIC", label="Ana's employer", content="Ana works at Tidewater.", key="ana.job"
    )
    first = remember(client, user, layer="EPISODIC", content="Ana adopted a grey cat called Miso.", sessionId="s1")
    second = remember(
        client, user, layer="EPISODIC", content="Miso chased a laser pointer all evening.", sessionId="s1"
    )
    remember(client, user, layer="WORKING", content="the last thing Ana said")
    bad = client.data(REMEMBER, scope=user, input={"layer": "SEMANTIC", "label": ""})["remember"]
    assert bad["__typename"] == "InputError" and bad["field"] == "label"

    page = """query($scope: String!, $after: String, $where: MemoryWhere) {
      memories(scope: $scope, first: 2, after: $after, where: $where) {
        totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id layer } } } }"""
    seen: list[str] = []
    after = None
    while True:
        conn = client.data(page, scope=user, after=after)["memories"]
        assert conn["totalCount"] == 5
        seen += [e["node"]["id"] for e in conn["edges"]]
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) == 5
    episodic = client.data(page, scope=user, where={"layers": ["EPISODIC"]})["memories"]
    assert episodic["totalCount"] == 2
    assert {e["node"]["id"] for e in episodic["edges"]} == {first["id"], second["id"]}
    bad_cursor = client.gql(page, scope=user, after="not-a-cursor")
    assert bad_cursor["errors"][0]["extensions"]["code"] == "BAD_INPUT"

    detail = client.data(
        """query($id: ID!, $old: ID!) {
          node(id: $id) { id neighbours { direction memory { id } edge { relationship weight provenance } } }
          old: node(id: $old) { supersededBy supersessionChain { id } }
        }""",
        id=first["id"],
        old=old["id"],
    )
    [link] = detail["node"]["neighbours"]
    assert link["memory"]["id"] == second["id"] and link["direction"] == "OUT"
    assert link["edge"]["relationship"] == "NEXT" and link["edge"]["weight"] > 0
    assert detail["old"]["supersededBy"] == new["id"]
    assert [m["id"] for m in detail["old"]["supersessionChain"]] == [old["id"], new["id"]]

    graph = client.data(
        """query($id: ID!, $to: ID!) {
          neighbourhood(id: $id, hops: 1) { nodes { id } edges { source target relationship } }
          paths(from: $id, to: $to) { nodes { id } edges { relationship } } }""",
        id=first["id"],
        to=second["id"],
    )
    assert {n["id"] for n in graph["neighbourhood"]["nodes"]} == {first["id"], second["id"]}
    assert graph["neighbourhood"]["edges"] == [{"source": first["id"], "target": second["id"], "relationship": "NEXT"}]
    assert [n["id"] for n in graph["paths"][0]["nodes"]] == [first["id"], second["id"]]

    retract = client.data(
        """mutation($scope: String!, $id: ID!) { retract(scope: $scope, id: $id, reason: "wrong cat") {
          __typename ... on MemoryPayload { memory { retracted retraction restorable } } } }""",
        scope=user,
        id=second["id"],
    )["retract"]
    assert retract["memory"]["retracted"] and retract["memory"]["restorable"]
    assert retract["memory"]["retraction"]["reason"] == "wrong cat"
    restore = """mutation($scope: String!, $id: ID!) { restore(scope: $scope, id: $id) {
      __typename ... on RestoreSuccess { memory { retracted } audit { action actor } }
      ... on RestoreError { code message } } }"""
    restored = client.data(restore, scope=user, id=second["id"])["restore"]
    assert restored["__typename"] == "RestoreSuccess" and restored["memory"]["retracted"] is False
    assert restored["audit"]["action"] == "restore" and restored["audit"]["actor"].startswith("key:")
    again = client.data(restore, scope=user, id=second["id"])["restore"]
    assert again["__typename"] == "RestoreError" and again["code"] == "NOT_RESTORABLE"
    audit = client.data("query($id: ID!) { node(id: $id) { auditEntries { action } } }", id=second["id"])
    assert [a["action"] for a in audit["node"]["auditEntries"]] == ["restore"]
    missing = client.data(restore, scope=user, id="nosuchmemory")["restore"]
    assert missing["code"] == "NOT_FOUND"


async def test_recall_and_context_are_explained(api_tenant: Tenant) -> None:
    t = api_tenant
    client = t.client(await t.key(t.user, Role.WRITER))
    for text in ("Ana adopted a grey cat called Miso.", "Ana's sister lives in Porto.", "Ana prefers tea to coffee."):
        remember(client, t.user.key, layer="SEMANTIC", label=text[:20], content=text)
    remember(
        client, t.org.key, layer="SEMANTIC", label="Office pets", content="Cats are welcome in the office."
    ) if False else None
    result = client.data(
        """query($scope: String!) { recall(scope: $scope, query: "What is the name of Ana's cat?", first: 2, hops: 1) {
          query scopeKey
          items { score scopeDistance explanation memory { content } channels { channel rank }
                  parts { relevance zVector zFulltext recency frequency scopeWeight } path { nodeId relationship } }
          activation { seeds activated { id hop } pending { source } capped }
          timings { embedMs candidatesMs activationMs scoringMs totalMs } } }""",
        scope=t.user.key,
    )["recall"]
    assert result["scopeKey"] == t.user.key
    top = result["items"][0]
    assert "Miso" in top["memory"]["content"]
    assert top["channels"] and top["parts"]["relevance"] > 0 and top["scopeDistance"] == 0
    assert "found by" in top["explanation"]
    assert result["timings"]["totalMs"] > 0
    assert isinstance(result["activation"]["capped"], bool)

    context = client.data(
        """query($scope: String!) { context(scope: $scope, query: "Ana cat tea Porto sister", budget: 20) {
          text tokens budget entries { id tokens explanation } dropped { id score memory { id } } } }""",
        scope=t.user.key,
    )["context"]
    assert context["budget"] == 20 and context["tokens"] <= 20
    assert context["entries"] and context["dropped"], context
    assert all(d["memory"]["id"] == d["id"] for d in context["dropped"])


async def test_procedures_triggers_consolidation_stats_scopes_and_forget(api_tenant: Tenant) -> None:
    t = api_tenant
    admin = t.client(await t.key(t.org, Role.ADMIN))
    user = t.user.key
    skill = remember(admin, user, layer="PROCEDURAL", label="deploy the app", steps=["build", "test", "ship"])
    assert skill["properties"]["status"] == "draft"
    drafts = admin.data("query($s: String!) { procedures(scope: $s, status: DRAFT) { id } }", s=user)["procedures"]
    assert [d["id"] for d in drafts] == [skill["id"]]
    decide = """mutation($s: String!, $id: ID!) {
      approveProcedure(scope: $s, id: $id) { __typename ... on MemoryPayload { memory { properties } } }
      toggleProcedure(scope: $s, id: $id, active: false) { __typename ... on MemoryPayload { memory { properties } } }
    }"""
    decided = admin.data(decide, s=user, id=skill["id"])
    assert decided["approveProcedure"]["memory"]["properties"]["status"] == "approved"
    assert decided["toggleProcedure"]["memory"]["properties"]["active"] is False
    unknown = admin.data(
        'mutation($s: String!) { rejectProcedure(scope: $s, id: "nosuchskill") { __typename } }', s=user
    )
    assert unknown["rejectProcedure"]["__typename"] == "NotFound"

    trig = admin.data(
        """mutation($s: String!) { setTrigger(scope: $s, condition: "Ana mentions Porto", task: "ask about her sister")
          { __typename ... on MemoryPayload { memory { id } } } }""",
        s=user,
    )["setTrigger"]["memory"]
    pending = admin.data("query($s: String!) { triggers(scope: $s) { id } }", s=user)["triggers"]
    assert [p["id"] for p in pending] == [trig["id"]]
    snoozed = admin.data(
        """mutation($s: String!, $id: ID!) { snoozeTrigger(scope: $s, id: $id, until: 4102444800)
          { __typename ... on MemoryPayload { memory { properties } } } }""",
        s=user,
        id=trig["id"],
    )["snoozeTrigger"]
    assert snoozed["memory"]["properties"]["snoozed_until"] == 4102444800.0
    admin.data(
        'mutation($s: String!, $id: ID!) { resolveTrigger(scope: $s, id: $id, outcome: "asked") { __typename } }',
        s=user,
        id=trig["id"],
    )
    assert admin.data("query($s: String!) { triggers(scope: $s) { id } }", s=user)["triggers"] == []

    report = admin.data(
        """mutation($s: String!) { consolidate(scope: $s, mode: QUICK) {
          __typename ... on ConsolidationReport { runId entryPoint status phases { name status counts } } } }""",
        s=user,
    )["consolidate"]
    assert report["__typename"] == "ConsolidationReport" and report["entryPoint"] == "quick_nap"
    runs = admin.data("query($s: String!) { consolidationRuns(scope: $s) { runId } }", s=user)["consolidationRuns"]
    assert runs[0]["runId"] == report["runId"]

    stats = admin.data(
        """query($s: String!) { stats(scope: $s) { scopeKey pendingLinks counts { total byLayer { layer total } }
          growth(days: 7) { day created } } }""",
        s=t.org.key,
    )["stats"]
    assert stats["counts"]["total"] == 2
    assert {c["layer"]: c["total"] for c in stats["counts"]["byLayer"]} == {"PROCEDURAL": 1, "PROSPECTIVE": 1}
    assert sum(g["created"] for g in stats["growth"]) == 2

    tree = admin.data(
        """query($k: String!) { scope(key: $k) { key exists ancestors { key }
          children(first: 5) { edges { node { key counts { total } counts2: counts(listing: SUBTREE) { total } } } }
          counts(listing: SUBTREE) { total byLayer { layer total } } } }""",
        k=t.org.key,
    )["scope"]
    assert tree["exists"] and tree["ancestors"] == []
    assert [e["node"]["key"] for e in tree["children"]["edges"]] == [user]
    assert tree["counts"]["total"] == 2

    refused = admin.data('mutation($s: String!) { forget(scope: $s, confirm: "yes") { __typename } }', s=user)["forget"]
    assert refused["__typename"] == "ForgetError"
    erased = admin.data(
        "mutation($s: String!) { forget(scope: $s, confirm: $s) { __typename ... on ForgetSuccess { erased } } }",
        s=user,
    )["forget"]
    assert erased["erased"] == 2


async def test_a_page_of_100_memories_with_neighbours_costs_a_bounded_number_of_cypher_calls(
    api_tenant: Tenant,
) -> None:
    t = api_tenant
    admin = t.client(await t.key(t.org, Role.ADMIN))
    memories = [
        {
            "type": "memory",
            "memory": {"id": f"bulk{i:03d}{t.org.id}", "layer": "episodic", "content": f"event number {i}",
                       "scope_key": t.user.key, "created_at": 1_700_000_000 + i, "updated_at": 1_700_000_000 + i},
        }
        for i in range(100)
    ]  # fmt: skip
    edges = [
        {"type": "edge", "edge": {"id": f"edge{i:03d}{t.org.id}", "source": f"bulk{i:03d}{t.org.id}",
                                  "target": f"bulk{i + 1:03d}{t.org.id}", "relationship": "NEXT", "weight": 1.5,
                                  "scope_key": t.user.key}}
        for i in range(99)
    ]  # fmt: skip
    body = "\n".join(json.dumps(x) for x in memories + edges)
    imported = admin.http.post("/v1/import", content=body)
    assert imported.status_code == 200, imported.text
    assert imported.json()["memories"] == 100 and imported.json()["edges"] == 99

    query = """query($s: String!) { memories(scope: $s, first: 100) { edges { node { id
      neighbours { weight: edge { weight } memory { id } } supersessionChain { id } auditEntries { id } } } } }"""
    body_json = admin.gql(query, s=t.user.key)
    assert not body_json.get("errors")
    nodes = [e["node"] for e in body_json["data"]["memories"]["edges"]]
    assert len(nodes) == 100
    assert sum(len(n["neighbours"]) for n in nodes) == 198
    # one call lists the page, one each fetches neighbours, chains and audit of all 100 (the key is
    # checked before the operation starts)
    assert body_json["extensions"]["cypherCalls"] == 4


async def test_remember_stores_content_as_given(api_tenant: Tenant, store: GraphStore) -> None:
    t = api_tenant
    client = t.client(await t.key(t.org, Role.WRITER))
    user = t.user.key
    text = "  Ana's list:\n\n\t- oat milk\n\t- café ☕ \r\n"
    fact = remember(client, user, layer="SEMANTIC", label="  Ana's list ", content=text, key=" ana.list ")
    event = remember(client, user, layer="EPISODIC", content=text + "\n")
    assert fact["content"] == text and fact["label"] == "Ana's list"  # the label is a name: trimmed
    assert event["content"] == text + "\n"
    stored = [await store.get_node(t.user, memory["id"]) for memory in (fact, event)]
    assert [s.content if s else None for s in stored] == [text, text + "\n"]
    assert stored[0] is not None and stored[0].key == "ana.list"  # the key too
    blank = client.data(REMEMBER, scope=user, input={"layer": "EPISODIC", "content": " \n\t "})["remember"]
    assert blank["__typename"] == "InputError" and blank["field"] == "content", blank
