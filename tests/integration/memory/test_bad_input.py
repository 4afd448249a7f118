"""Bad input is refused with an error naming the field, before anything is written; injection
strings in labels, queries, keys, properties and sessions are stored or searched literally,
never executed; in scope ids, layer names, relationship types and ids they are refused."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from hippograph.errors import InvalidInputError, InvalidQueryError, InvalidScopeError
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from tests.integration.memory.helpers import INJECTION, INJECTIONS
from tests.support.memory_internals import internals


@pytest.fixture
async def canary(memory: Memory, tenant: Scope) -> AsyncIterator[MemoryNode]:
    """A memory elsewhere that any executed DELETE would take with it."""
    scope = tenant.child("canary", "c")
    node = await memory.remember(scope, "canary: still here")
    yield node
    assert await internals(memory).store.get_node(scope, node.id) is not None, "an injection deleted the canary"


@pytest.mark.parametrize("query", ["", "   ", "\n\t", None, 42, "x" * 4001])
async def test_unusable_queries_are_refused(memory: Memory, tenant: Scope, query: object) -> None:
    with pytest.raises(InvalidQueryError, match="query"):
        await memory.recall(tenant, query)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="query"):
        await internals(memory).semantic.retrieve(tenant, query)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("layers", "field"),
    [(["facts"], r"layers\[0\]"), (["semantic", "Episodic"], r"layers\[1\]"), ([], "layers"),
     (["prospective"], r"layers\[0\]"), ([INJECTION], r"layers\[0\]")],
)  # fmt: skip
async def test_unknown_layers_are_refused(memory: Memory, tenant: Scope, layers: list[str],
                                          field: str) -> None:  # fmt: skip
    with pytest.raises(InvalidQueryError, match=field):
        await memory.recall(tenant, "harbor", layers=layers)


@pytest.mark.parametrize("top_k", [-1, 501])
async def test_top_k_out_of_range_is_refused(memory: Memory, tenant: Scope, top_k: int) -> None:
    with pytest.raises(InvalidQueryError, match="top_k"):
        await memory.recall(tenant, "harbor", top_k=top_k)


async def test_top_k_zero_is_not_silently_the_default(memory: Memory, tenant: Scope) -> None:
    for i in range(8):
        await memory.remember(tenant, f"harbor note {i}", dedup=False)
    try:
        result = await memory.recall(tenant, "harbor", top_k=0)
    except InvalidQueryError:
        return
    assert result.items == []


@pytest.mark.parametrize("text", INJECTIONS)
async def test_injection_in_labels_contents_keys_and_properties_is_stored_literally(
    memory: Memory, tenant: Scope, canary: MemoryNode, text: str
) -> None:
    fact = await memory.remember(tenant, text, text, key=text, properties={text: text, "nested": {text: [text]}})
    stored = await internals(memory).store.get_node(tenant, fact.id)
    assert stored is not None
    assert (stored.label, stored.content, stored.key) == (text, text, text)
    assert stored.properties == {text: text, "nested": {text: [text]}}
    assert [f.id for f in await internals(memory).semantic.query_facts(tenant, label=text)] == [fact.id]
    assert await internals(memory).semantic.query_facts(tenant, label_prefix=text + "zzz") == []
    event = await internals(memory).episodic.store_event(tenant, text, session_id=text[:100])
    assert [e.id for e in await internals(memory).episodic.query_events(tenant, session_id=text[:100])] == [event.id]
    skill = await internals(memory).procedural.store_skill(tenant, text, [text], status="approved")
    trigger = await internals(memory).prospective.set_trigger(tenant, text, text)
    await internals(memory).working.push(tenant, text)
    for node in (skill, trigger):
        again = await internals(memory).store.get_node(tenant, node.id)
        assert again is not None and text in again.text


@pytest.mark.parametrize("text", INJECTIONS)
async def test_injection_in_queries_is_searched_literally(
    memory: Memory, tenant: Scope, canary: MemoryNode, text: str
) -> None:
    literal = await memory.remember(tenant, f"literal {text}")
    await memory.remember(tenant, "an unrelated harbor fact")
    result = await memory.recall(tenant, text, top_k=10)
    assert {i.node.scope_key for i in result.items} <= {tenant.key}
    assert canary.id not in result.ids
    if any(len(w) > 1 for w in text.replace("`", " ").split() if w.isalnum()):
        assert literal.id in result.ids
    _, ctx = await memory.context(tenant, text)
    assert canary.label not in ctx.text


@pytest.mark.parametrize("scope_id", [INJECTION, "a/b", "a:b", "a b", "tab\there", "", "x" * 129, "nul\x00"])
def test_injection_and_separators_in_scope_ids_are_refused(scope_id: str) -> None:
    with pytest.raises(InvalidScopeError):
        Scope.root("org", scope_id)
    with pytest.raises(InvalidScopeError):
        Scope.root("org", "fine").child("user", scope_id)


@pytest.mark.parametrize("kind", [INJECTION, "Org", "1org", "org-x", ""])
def test_bad_scope_kinds_are_refused(kind: str) -> None:
    with pytest.raises(InvalidScopeError):
        Scope.root(kind, "fine")


@pytest.mark.parametrize("key", [f"org:{INJECTION}", "org:a/org:b", "org", "org:a//user:b", ""])
def test_bad_scope_keys_are_refused(key: str) -> None:
    with pytest.raises(InvalidScopeError):
        Scope.parse(key)


async def test_injection_as_a_relationship_type_or_an_id_is_refused(
    memory: Memory, tenant: Scope, canary: MemoryNode
) -> None:
    a = await memory.remember(tenant, "first fact")
    b = await memory.remember(tenant, "second unrelated thing")
    for rel in (INJECTION, "RELATES_TO]->(m) DETACH DELETE m //", "relates_to "):
        with pytest.raises(InvalidInputError, match="relationship"):
            await internals(memory).semantic.link(tenant, a.id, b.id, rel)
    with pytest.raises(InvalidInputError, match="target"):
        await internals(memory).semantic.link(tenant, a.id, INJECTION, "RELATES_TO")
    with pytest.raises(InvalidInputError, match="source"):
        await internals(memory).semantic.link(tenant, INJECTION, b.id, "RELATES_TO")
    with pytest.raises(InvalidInputError, match="node_id"):
        await internals(memory).store.get_node(tenant, INJECTION)
    with pytest.raises(InvalidInputError, match="node_id"):
        await internals(memory).semantic.delete(tenant, INJECTION)
    with pytest.raises(InvalidInputError, match=r"entry\.id"):
        await internals(memory).semantic.write(tenant, {"id": INJECTION, "content": "x"})
    with pytest.raises(InvalidInputError, match="supersedes"):
        await internals(memory).semantic.store_fact(tenant, "new", supersedes=INJECTION)
    with pytest.raises(InvalidInputError, match="filters"):
        await internals(memory).store.query_nodes(tenant, {"layers": [INJECTION]})
    assert await internals(memory).store.get_neighbors(tenant, a.id) == []
    assert await internals(memory).semantic.count(tenant) == 2


async def test_an_audit_actor_is_stored_literally(memory: Memory, tenant: Scope) -> None:
    from hippograph.audit import list_audit

    skill = await internals(memory).procedural.store_skill(tenant, "rotate the keys monthly", ["rotate", "verify"])
    await internals(memory).procedural.approve_skill(tenant, skill.id, actor=INJECTION)
    assert [e.actor for e in await list_audit(internals(memory).store.conn, tenant)] == [INJECTION]


async def test_a_write_with_bad_fields_writes_nothing(memory: Memory, tenant: Scope) -> None:
    for bad in ({"content": "x", "layer": "semantic", "embedding": []}, {"content": "y" * 20_001},
                {"label": "z" * 301}, {"content": "x", "durability": "forever"}):  # fmt: skip
        with pytest.raises(InvalidInputError):
            await memory.get_layer(Layer.EPISODIC).write(tenant, bad)
    assert await internals(memory).episodic.count(tenant) == 0


async def test_the_store_refuses_a_bad_edge_end_with_its_own_error(memory: Memory, tenant: Scope) -> None:
    a = await memory.remember(tenant, "first fact")
    with pytest.raises(InvalidInputError):
        await internals(memory).store.link(tenant, a.id, INJECTION, "RELATES_TO")
