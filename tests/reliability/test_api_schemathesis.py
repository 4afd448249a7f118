"""Schemathesis against the running API. The GraphQL schema is loaded from the server by
introspection, and every query and mutation field is driven with generated documents — valid ones and ones the
schema refuses — under five kinds of key: a valid admin key of tenant A; no key; a malformed
one; a revoked one of A; and tenant B's admin key aimed at A's scopes and memory ids.

Asserted for every request: no status ≥ 500; a JSON body without a stack trace, exception text
or a masked internal error; a GraphQL answer that matches the schema (Schemathesis' conformance
check) and whose every error carries a code (Schemathesis counts a resolver's error with a path
as a server error; this API codes its caller errors — ``NOT_FOUND``, ``BAD_INPUT``, … — and masks
only internal ones, ``INTERNAL``, which fail the test); no key, a malformed or a revoked one is
401 ``UNAUTHENTICATED``; nothing of the other tenant in the body (each tenant's memories carry a
marker text); and a refused request writes nothing (nodes and relationships in the whole
database, counted before and after it). Tenant B is unchanged after everything the valid key
of A sent.

The plain-HTTP routes beside GraphQL (the SSE turn, export, import, health, readiness, metrics)
get the same treatment from the app's OpenAPI document."""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import graphql
import neo4j
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from hippograph.app.access.keys import Role, create_key, revoke_key
from hippograph.app.access.repository import KeyRepository
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.e2e.api.harness import Server, start_server

FORBIDDEN_TEXT = ("Traceback", 'File "', "neo4j.exceptions", "Internal error", "Exception:", "Error(")
SCOPE_ARGS = {"scope", "key"}
ID_ARGS = {"id", "from", "to"}
EXAMPLES_VALID = int(os.environ.get("HIPPOGRAPH_FUZZ_EXAMPLES", "8"))
"""Generated documents per operation for the valid key (the hostile kinds get half as many);
``HIPPOGRAPH_FUZZ_EXAMPLES`` raises it for a longer hunt."""


@dataclass
class Party:
    org: Scope
    user: Scope
    marker: str
    ids: list[str]


@dataclass
class World:
    server: Server
    a: Party
    b: Party
    tokens: dict[str, str]


def _party(name: str) -> Party:
    org = Scope.root("org", f"fuzz-{name}-{uuid.uuid4().hex[:8]}")
    marker = f"MARKER{name.upper()}{uuid.uuid4().hex[:10]}"
    return Party(org, org.child("user", "ana"), marker, [f"{name}{org.id}-{i}" for i in range(4)])


def _seed(server: Server, party: Party, token: str) -> None:
    lines: list[dict[str, Any]] = []
    for i, memory_id in enumerate(party.ids):
        scope = party.user if i % 2 else party.org
        text = f"{party.marker} fact {i}"
        lines.append(
            {"type": "memory", "memory": {"id": memory_id, "layer": "semantic", "label": text, "content": text,
                                          "scope_key": scope.key}}
        )  # fmt: skip
    lines.append(
        {"type": "edge", "edge": {"id": f"e-{party.ids[0]}", "source": party.ids[0], "target": party.ids[1],
                                  "relationship": "RELATES_TO", "scope_key": party.user.key}}
    )  # fmt: skip
    response = requests.post(
        server.url + "/v1/import",
        data="\n".join(json.dumps(x) for x in lines),
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    assert response.status_code == 200, response.text


@pytest.fixture
async def world(neo4j_server: tuple[str, str], tmp_path: Path, conn: Any, store: GraphStore) -> AsyncIterator[World]:
    """Two seeded tenants, the keys and a server of their own (its rate limit out of the way of a
    few hundred requests a minute), stopped — its background work drained — before both are erased."""
    fuzz_server = start_server(neo4j_server, tmp_path, rate_limit_per_minute=1_000_000)
    a, b = _party("a"), _party("b")
    try:
        repo = KeyRepository(conn)
        _, a_admin = await create_key(repo, a.org, Role.ADMIN, name="fuzz valid")
        revoked_record, revoked = await create_key(repo, a.org, Role.ADMIN, name="fuzz revoked")
        await revoke_key(repo, revoked_record.id)
        _, b_admin = await create_key(repo, b.org, Role.ADMIN, name="fuzz other tenant")
        _seed(fuzz_server, a, a_admin)
        _seed(fuzz_server, b, b_admin)
        yield World(fuzz_server, a, b, {"valid": a_admin, "revoked": revoked, "other": b_admin})
    finally:
        fuzz_server.stop()
        await store.delete_subtree(a.org)
        await store.delete_subtree(b.org)


def _rewrite(document: str, scopes: list[str], ids: list[str], draw: st.DrawFn, always: bool) -> str:
    """The document with string arguments naming scopes or memory ids replaced, now and then
    (``always``: each one), by real ones; a document that does not parse is left as it is."""
    try:
        tree = graphql.parse(document)
    except graphql.GraphQLError:
        return document

    class Swap(graphql.Visitor):
        def enter_argument(self, node: graphql.ArgumentNode, *_: Any) -> graphql.ArgumentNode | None:
            pool = scopes if node.name.value in SCOPE_ARGS else ids if node.name.value in ID_ARGS else None
            if pool is None or not isinstance(node.value, graphql.StringValueNode):
                return None
            if not always and not draw(st.booleans()):
                return None
            value = graphql.StringValueNode(value=draw(st.sampled_from(pool)))
            return graphql.ArgumentNode(name=node.name, value=value)

    return graphql.print_ast(graphql.visit(tree, Swap()))


def _counts(driver: neo4j.Driver) -> tuple[int, int]:
    records, _, _ = driver.execute_query(
        "MATCH (n) WITH count(n) AS nodes MATCH ()-[r]->() RETURN nodes, count(r) AS rels"
    )
    return int(records[0]["nodes"]), int(records[0]["rels"])


def _subtree(driver: neo4j.Driver, org: Scope) -> tuple[int, int]:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory) WHERE m.scope_key = $k OR m.scope_key STARTS WITH $p "
        "OPTIONAL MATCH (m)-[r]-() RETURN count(DISTINCT m) AS nodes, count(DISTINCT r) AS rels",
        k=org.key,
        p=org.subtree_prefix,
    )
    return int(records[0]["nodes"]), int(records[0]["rels"])


def _headers(kind: str, tokens: dict[str, str]) -> st.SearchStrategy[dict[str, str]]:
    if kind == "none":
        return st.just({})
    if kind == "revoked":
        return st.just({"Authorization": f"Bearer {tokens['revoked']}"})
    if kind in ("other", "valid"):
        return st.just({"Authorization": f"Bearer {tokens[kind]}"})
    assert kind == "malformed", kind
    valid = tokens["valid"]
    return st.sampled_from(
        [
            {"Authorization": "Bearer"},
            {"Authorization": "Bearer "},
            {"Authorization": f"Basic {valid}"},
            {"Authorization": f"Bearer {valid}x"},
            {"Authorization": f"Bearer {valid[:-1]}"},
            {"Authorization": f"Bearer  {valid} extra"},
            {"Authorization": "Bearer hg_" + "0" * 40},
            {"Authorization": "Bearer " + "A" * 8000},
            {"Authorization": "Bearer \xff\xfe"},
            {"Authorization": valid},
        ]
    )


def test_schemathesis_fuzz(world: World, neo4j_server: tuple[str, str], tally: Counter[str]) -> None:
    w = world
    url = w.server.url + "/graphql"
    schema = schemathesis.graphql.from_url(url, headers={"Authorization": f"Bearer {w.tokens['valid']}"}, timeout=60)
    operations = [result.ok() for result in schema.get_all_operations()]
    labels = sorted(op.label for op in operations)
    assert any(label.startswith("Mutation.") for label in labels) and any(x.startswith("Query.") for x in labels)
    uri, password = neo4j_server
    driver = neo4j.GraphDatabase.driver(uri, auth=("neo4j", password))
    session = requests.Session()
    b_before = _subtree(driver, w.b.org)
    a_scopes = [w.a.org.key, w.a.user.key]
    try:
        for kind in ("none", "malformed", "revoked", "other", "valid"):  # the writing key last
            for op in operations:
                _fuzz(op, kind, w, a_scopes, driver, session, tally)
        assert _subtree(driver, w.b.org) == b_before, "tenant A's key changed tenant B"
    finally:
        driver.close()
        session.close()


def _fuzz(
    op: Any,
    kind: str,
    w: World,
    a_scopes: list[str],
    driver: neo4j.Driver,
    session: requests.Session,
    tally: Counter[str],
) -> None:
    cases = op.as_strategy(generation_mode=GenerationMode.POSITIVE) | op.as_strategy(
        generation_mode=GenerationMode.NEGATIVE
    )
    valid = kind == "valid"
    foreign = w.b.marker if kind == "valid" else w.a.marker
    examples = EXAMPLES_VALID if valid else EXAMPLES_VALID // 2

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases, headers=_headers(kind, w.tokens), data=st.data())
    def attack(case: Any, headers: dict[str, str], data: st.DataObject) -> None:
        if isinstance(case.body, str):
            if valid:  # A's own scopes and ids, and B's ids to reach across
                case.body = _rewrite(case.body, a_scopes, w.a.ids + w.b.ids, data.draw, always=False)
            else:  # every scope and id is A's: B's key aims at A, the others at anything real
                case.body = _rewrite(case.body, a_scopes, w.a.ids, data.draw, always=True)
        before = None if valid else _counts(driver)
        response = case.call(base_url=w.server.url, session=session, headers=headers, timeout=60)
        tally[f"schemathesis requests ({kind} key, HTTP {response.status_code})"] += 1
        where = f"{op.label} with the {kind} key: {case.body!r}"
        text = response.text
        assert response.status_code < 500, f"{where} -> {response.status_code} {text[:300]}"
        assert not any(s in text for s in FORBIDDEN_TEXT), f"{where} -> {text[:300]}"
        body = response.json()
        assert isinstance(body, dict), f"{where} -> {text[:300]}"
        if response.status_code == 200:  # a GraphQL answer: JSON as the schema says, every error coded
            case.validate_response(response, checks=[response_schema_conformance])
            codes = [(e.get("extensions") or {}).get("code") for e in body.get("errors") or []]
            assert all(c and c != "INTERNAL" for c in codes), f"{where} -> {text[:300]}"
            tally[f"schemathesis answers without errors ({kind} key)"] += not codes
        assert foreign not in text, f"{where} leaked the other tenant: {text[:300]}"
        if kind in ("none", "malformed", "revoked"):
            assert response.status_code == 401, f"{where} -> {response.status_code} {text[:300]}"
            assert body["error"]["code"] == "UNAUTHENTICATED", f"{where} -> {text[:300]}"
            assert w.a.marker not in text, f"{where} -> {text[:300]}"
        if before is not None:
            after = _counts(driver)
            tally["refused requests that wrote"] += after != before
            assert after == before, f"{where} was refused but wrote: {before} -> {after}"

    attack()


def test_schemathesis_fuzz_of_the_http_routes(world: World, neo4j_server: tuple[str, str], tally: Counter[str]) -> None:
    """The plain-HTTP routes beside GraphQL (the SSE turn, export, import, health, readiness,
    metrics), from the app's OpenAPI document, under the same five kinds of key."""
    w = world
    schema = schemathesis.openapi.from_url(w.server.url + "/openapi.json", timeout=60)
    operations = [op for op in (r.ok() for r in schema.get_all_operations()) if not op.path.startswith("/graphql")]
    assert {op.path for op in operations} >= {"/v1/turn/stream", "/v1/export", "/v1/import"}
    uri, password = neo4j_server
    driver = neo4j.GraphDatabase.driver(uri, auth=("neo4j", password))
    session = requests.Session()
    b_before = _subtree(driver, w.b.org)
    try:
        for kind in ("none", "malformed", "revoked", "other", "valid"):
            for op in operations:
                _fuzz_route(op, kind, w, driver, session, tally)
        assert _subtree(driver, w.b.org) == b_before, "tenant A's key changed tenant B"
    finally:
        driver.close()
        session.close()


OPEN_PATHS = {"/healthz", "/readyz", "/metrics"}


def _fuzz_route(
    op: Any, kind: str, w: World, driver: neo4j.Driver, session: requests.Session, tally: Counter[str]
) -> None:
    cases = op.as_strategy(generation_mode=GenerationMode.POSITIVE) | op.as_strategy(
        generation_mode=GenerationMode.NEGATIVE
    )
    scopes = [w.a.org.key, w.a.user.key]
    foreign = w.b.marker if kind == "valid" else w.a.marker

    @settings(
        max_examples=EXAMPLES_VALID if kind == "valid" else EXAMPLES_VALID // 2,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases, headers=_headers(kind, w.tokens), data=st.data())
    def attack(case: Any, headers: dict[str, str], data: st.DataObject) -> None:
        for params in (case.query, case.body):  # A's real scopes now and then
            if isinstance(params, dict) and "scope" in params and data.draw(st.booleans()):
                params["scope"] = data.draw(st.sampled_from(scopes))
        before = None if kind == "valid" else _counts(driver)
        response = case.call(base_url=w.server.url, session=session, headers=headers, timeout=120)
        tally[f"schemathesis HTTP-route requests ({kind} key, HTTP {response.status_code})"] += 1
        where = f"{case.method} {case.path} with the {kind} key: {case.query!r} {case.body!r}"
        text = response.text
        assert response.status_code < 500, f"{where} -> {response.status_code} {text[:300]}"
        assert not any(s in text for s in FORBIDDEN_TEXT), f"{where} -> {text[:300]}"
        assert foreign not in text, f"{where} leaked the other tenant: {text[:300]}"
        if kind in ("none", "malformed", "revoked") and case.path not in OPEN_PATHS:
            assert response.status_code == 401, f"{where} -> {response.status_code} {text[:300]}"
            assert response.json()["error"]["code"] == "UNAUTHENTICATED", f"{where} -> {text[:300]}"
        if before is not None:
            after = _counts(driver)
            tally["refused requests that wrote"] += after != before
            assert after == before, f"{where} was refused but wrote: {before} -> {after}"

    attack()
