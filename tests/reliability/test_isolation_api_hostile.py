"""Issue 13 #3 at the API: a key bound to a sibling user sends hostile variants of its neighbour's
scope key (look-alikes, NFC / NFD, case, separators, path tricks, very long, control characters,
Cypher and Lucene syntax) to every reading field — recall, listings, counts, stats, node, export.
No answer carries the neighbour's text, ids or counts: not the data, not an error message, not
a count. The tally reports the requests tried and the leaks found."""

from __future__ import annotations

import unicodedata
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Tenant

SECRET = "kestrel-vault-7731"
READS = {
    "recall": 'query($s: String!) { recall(scope: $s, query: "kestrel vault") { items { memory { id content } } } }',
    "memories": "query($s: String!) { memories(scope: $s, first: 50) { totalCount edges { node { id content } } } }",
    "stats": "query($s: String!) { stats(scope: $s) { counts { total } pendingLinks } }",
    "scope": "query($s: String!) { scope(key: $s) { key } }",
    "runs": "query($s: String!) { consolidationRuns(scope: $s, first: 5) { runId } }",
}
VICTIM_MEMORIES = 6


def variants(key: str) -> list[str]:
    """Spellings of ``key`` an attacker might hope the server treats as the same scope."""
    org, user = key.split("/")[:2]
    return [
        key,
        key + "/",
        "/" + key,
        key.upper(),
        key.replace("user:", "USER:"),
        key + "/conversation:c1",
        unicodedata.normalize("NFD", key.replace("ana", "an\u00e1")),
        key.replace("a", "\u0430"),
        f"{org}/user:bob/../{user.split(':')[0]}:ana",
        f"{org}//{user}",
        f"{org}/{user}\x00",
        f"{org}/{user} ",
        f"{org}/{user}\u200b",
        f"{org}/user:*",
        f"{org}/user:ana*",
        f"{org}/user:a?a",
        f"{org} OR 1=1",
        f"{org}/user:ana`) MATCH (m) RETURN m //",
        f"{org}/user:" + "a" * 5000,
        "",
        "*:*",
        org,
        key + "/@support",  # the victim's path in a namespace
        f"{org}/@support",
        f"{org}/user:bob/@../{user}",
        f"{org}/user:bob/@support/{user}",
    ]


async def test_hostile_scope_keys_never_reach_the_neighbour(api_tenant: Tenant, tally: Counter[str]) -> None:
    t = api_tenant
    writer = t.client(await t.key(t.user, Role.WRITER))
    remember = """mutation($s: String!, $i: RememberInput!) { remember(scope: $s, input: $i) { __typename } }"""
    for i in range(VICTIM_MEMORIES):
        scope = t.user if i % 2 else t.conversation
        writer.data(remember, s=scope.key, i={"layer": "SEMANTIC", "label": f"vault {i}", "content": f"{SECRET} {i}"})
    attacker = t.client(await t.key(t.sibling, Role.ADMIN))
    spellings = st.sampled_from(variants(t.user.key)) | st.text(max_size=60).map(lambda s: f"{t.org.key}/{s}")

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(scope=spellings, field=st.sampled_from(sorted(READS)))
    def attack(scope: str, field: str) -> None:
        response = attacker.post(READS[field], s=scope)
        export = attacker.http.get("/v1/export", params={"scope": scope})
        tally["hostile API requests tried"] += 2
        for answer in (response, export):
            text = answer.text
            counts = [f'"total": {n}' for n in range(VICTIM_MEMORIES, 100)]
            leaked = SECRET in text or any(c in text.replace('":', '": ') for c in counts)
            tally["leaks found"] += leaked
            assert not leaked, f"{field}({scope!r}) leaked: {text[:300]}"
            assert answer.status_code in (200, 400, 403, 404), text[:300]
            assert "Traceback" not in text and "Internal error" not in text, text[:300]

    attack()


async def test_a_forgotten_scope_takes_its_keys_with_it(api_tenant: Tenant) -> None:
    """The keys of an erased scope outlived it: a scope re-created under the same key opened to them."""
    t = api_tenant
    admin = t.client(await t.key(t.org, Role.ADMIN))
    old = t.client(await t.key(t.user, Role.WRITER))
    forget = "mutation($s: String!) { forget(scope: $s, confirm: $s) { __typename } }"
    assert admin.data(forget, s=t.user.key)["forget"]["__typename"] == "ForgetSuccess"
    remember = """mutation($s: String!, $i: RememberInput!) { remember(scope: $s, input: $i) { __typename } }"""
    admin.data(remember, s=t.user.key, i={"layer": "SEMANTIC", "label": "new owner", "content": "A new tenant."})
    probe = old.post(READS["memories"], s=t.user.key)
    assert probe.status_code == 401 and "new tenant" not in probe.text.lower(), probe.text[:300]
