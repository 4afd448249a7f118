"""Fuzzed requests against the real server: operations generated from the schema (every root
field, arguments of the right and the wrong shape, real and bogus scope keys) and raw garbage.
No request gets a 500, no answer carries a stack trace or an internal error, and a request
that is refused writes nothing."""

from __future__ import annotations

import json
import time
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    get_named_type,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippograph.app.access.keys import Role
from hippograph.app.api.schema.build import build_schema
from tests.e2e.api.harness import Client, Tenant

SCHEMA: GraphQLSchema = build_schema()._schema
FORBIDDEN_TEXT = ("Traceback", 'File "', "neo4j.exceptions", "Internal error")


def values_for(type_: Any, scopes: list[str], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values of the argument's type, often wrong, sometimes null or of another type."""
    nullable = not isinstance(type_, GraphQLNonNull)
    inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    if isinstance(inner, GraphQLList):
        strat = st.lists(values_for(inner.of_type, scopes, depth + 1), max_size=3)
    elif isinstance(inner, GraphQLEnumType):
        strat = st.sampled_from([*inner.values, "NOT_A_VALUE"])
    elif isinstance(inner, GraphQLInputObjectType) and depth < 2:
        strat = st.fixed_dictionaries(
            {},
            optional={name: values_for(f.type, scopes, depth + 1) for name, f in inner.fields.items()},
        )
    elif isinstance(inner, GraphQLScalarType) and inner.name == "Int":
        strat = st.one_of(st.integers(-5, 5), st.integers(-(2**31), 2**31 - 1))
    elif isinstance(inner, GraphQLScalarType) and inner.name == "Float":
        strat = st.floats(allow_nan=False, allow_infinity=False, width=32)
    elif isinstance(inner, GraphQLScalarType) and inner.name == "Boolean":
        strat = st.booleans()
    elif isinstance(inner, GraphQLScalarType) and inner.name == "JSON":
        strat = st.one_of(st.none(), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2), st.text())
    else:  # String, ID
        strat = st.one_of(
            st.sampled_from(scopes),
            st.text(max_size=40),
            st.sampled_from(["org:a/b", "x`) DETACH DELETE m //", "org:" + "z" * 200, "", "hg_" + "0" * 40]),
        )
    wrong = st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2))
    return st.one_of(strat, st.none(), wrong) if nullable else st.one_of(strat, strat, wrong)


def selection(field: GraphQLField) -> str:
    named = get_named_type(field.type)
    if isinstance(named, (GraphQLObjectType, GraphQLUnionType)):
        return " { __typename }"
    return ""


@st.composite
def operations(draw: st.DrawFn, scopes: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["query", "mutation"]))
    root = SCHEMA.query_type if kind == "query" else SCHEMA.mutation_type
    assert root is not None
    name = draw(st.sampled_from(sorted(root.fields)))
    field = root.fields[name]
    variables: dict[str, Any] = {}
    declared, passed = [], []
    for arg_name, arg in field.args.items():
        if isinstance(arg.type, GraphQLNonNull) or draw(st.booleans()):
            variables[arg_name] = draw(values_for(arg.type, scopes))
            declared.append(f"${arg_name}: {arg.type}")
            passed.append(f"{arg_name}: ${arg_name}")
    head = f"{kind}({', '.join(declared)})" if declared else kind
    args = f"({', '.join(passed)})" if passed else ""
    return {"query": f"{head} {{ {name}{args}{selection(field)} }}", "variables": variables}


garbage = st.one_of(
    st.text(max_size=200).map(lambda q: {"query": q}),
    st.just(
        {
            "query": "{ "
            + 'memories(scope: "x") { edges { node { neighbours { memory { ' * 8
            + "id"
            + " } } } } }" * 8
            + " }"
        }
    ),
    st.just({"query": "{ " + " ".join(f"a{i}: __typename" for i in range(40)) + " }"}),
    st.just({"query": 'query { node(id: "x") { id } }', "variables": "not an object"}),
    st.just({"nothing": True}),
)


def count_memories(admin: Client, scope: str) -> int:
    stats = admin.data("query($s: String!) { stats(scope: $s) { counts { total } } }", s=scope)
    return int(stats["stats"]["counts"]["total"])


def settle(admin: Client, scope: str, *, quiet: float = 0.5, limit: float = 20.0) -> None:
    """Wait until the scope's memory count holds still (background writes of accepted turns)."""
    deadline = time.monotonic() + limit
    last = count_memories(admin, scope)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = count_memories(admin, scope)
        if now == last:
            return
        last = now


def check(response: Any) -> dict[str, Any] | None:
    assert response.status_code < 500, response.text
    for text in FORBIDDEN_TEXT:
        assert text not in response.text, response.text
    try:
        body: dict[str, Any] = response.json()
    except json.JSONDecodeError:
        return None
    return body


def refused(body: dict[str, Any] | None) -> bool:
    if body is None or body.get("errors") or not body.get("data"):
        return True
    return any(
        isinstance(v, dict) and v.get("__typename") in ("InputError", "NotFound", "ForgetError", "RestoreError")
        for v in body["data"].values()
    )


async def test_fuzzed_requests_never_fail_the_server(api_tenant: Tenant) -> None:
    t = api_tenant
    admin = t.client(await t.key(t.org, Role.ADMIN))
    writer = t.client(await t.key(t.user, Role.WRITER))
    reader = t.client(await t.key(t.user, Role.READER))
    admin.data(
        'mutation($s: String!) { remember(scope: $s, input: {layer: SEMANTIC, label: "seed", content: "a seed fact"}) '
        "{ __typename } }",
        s=t.user.key,
    )
    scopes = [t.org.key, t.user.key, t.conversation.key, t.sibling.key, "org:other"]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(request=st.one_of(operations(scopes), garbage), who=st.sampled_from(["writer", "reader"]))
    def run(request: dict[str, Any], who: str) -> None:
        client = writer if who == "writer" else reader
        before = count_memories(admin, t.org.key)
        body = check(client.http.post("/graphql", json=request))
        if body is not None and body.get("errors"):
            assert all(e.get("extensions", {}).get("code") != "INTERNAL" for e in body["errors"]), body
        if who == "reader" or refused(body):
            assert count_memories(admin, t.org.key) == before, (request, body)
        else:
            settle(admin, t.org.key)  # an accepted turn records its exchange in the background

    run()
