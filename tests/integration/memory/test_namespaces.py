"""Namespaces: two partitions of one scope path never see each other's memories, in recall or
in any read; the memories of no namespace, at the path and above it, are shared by both."""

from __future__ import annotations

import pytest

from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from tests.integration.memory.test_scope_rules import QUERY, matching, owners, seed_everywhere
from tests.support.memory_internals import internals


@pytest.fixture
async def spaces(memory: Memory, tenant: Scope) -> dict[str, Scope]:
    user = tenant.child("user", "bob")
    scopes = {
        "org": tenant, "org-support": tenant.in_namespace("support"), "org-sales": tenant.in_namespace("sales"),
        "user": user, "support": user.in_namespace("support"), "sales": user.in_namespace("sales"),
        "support2": user.in_namespace("support2"),  # a namespace whose name extends another's
        "conv-support": user.child("conversation", "c1").in_namespace("support"),
    }  # fmt: skip
    await seed_everywhere(memory, scopes)
    return scopes


async def test_recall_sees_its_namespace_and_the_shared_ancestry_only(memory: Memory, spaces: dict[str, Scope]) -> None:
    for layer in (Layer.SEMANTIC, Layer.EPISODIC):
        items = matching((await memory.recall(spaces["support"], QUERY, layers=[layer], top_k=50)).items)
        assert sorted(owners(items, spaces)) == ["org", "org-support", "support", "user"]
        distance = {owners([i], spaces)[0]: i.scope_distance for i in items}
        assert distance == {"support": 0, "user": 0, "org-support": 1, "org": 1}
        sales = matching((await memory.recall(spaces["sales"], QUERY, layers=[layer], top_k=50)).items)
        assert sorted(owners(sales, spaces)) == ["org", "org-sales", "sales", "user"]
        plain = matching((await memory.recall(spaces["user"], QUERY, layers=[layer], top_k=50)).items)
        assert sorted(owners(plain, spaces)) == ["org", "user"]
        deeper = matching((await memory.recall(spaces["conv-support"], QUERY, layers=[layer], top_k=50)).items)
        assert sorted(owners(deeper, spaces)) == ["conv-support", "org", "org-support", "support", "user"]


async def test_every_layer_and_every_read_keeps_namespaces_apart(memory: Memory, spaces: dict[str, Scope]) -> None:
    support, sales = spaces["support"], spaces["sales"]
    whole = await memory.recall(support, QUERY, top_k=200)
    assert "sales" not in owners(whole.items, spaces) and "support2" not in owners(whole.items, spaces)
    for a in whole.activation.activated:
        for step in a.path:
            if not step.node_id.startswith("cue:"):
                assert await internals(memory).store.get_node(support, step.node_id) is not None
    assert owners(await internals(memory).working.get_context(support), spaces) == ["support"]
    assert owners(await internals(memory).prospective.get_pending(sales), spaces) == ["sales"]
    assert owners(await internals(memory).procedural.query_skills(support), spaces) == ["support"]
    facts = await internals(memory).semantic.query_facts(support)
    assert sorted(owners(facts, spaces)) == ["org", "org-support", "support", "user"]
    sales_ids = {n.id for n in await internals(memory).store.query_nodes(sales, limit=None)}
    support_ids = {n.id for n in await internals(memory).store.query_nodes(support, limit=None)}
    own_sales = {n.id for n in await internals(memory).store.query_nodes(sales, limit=None) if n.scope_key == sales.key}
    assert own_sales and not (own_sales & support_ids)
    assert await internals(memory).store.get_nodes(support, list(own_sales)) == []
    shared = {n.id for n in await internals(memory).store.query_nodes(spaces["user"], limit=None)}
    assert shared and shared <= sales_ids and shared <= support_ids


async def test_forgetting_a_namespace_leaves_the_path_and_forgetting_the_path_takes_all(
    memory: Memory, spaces: dict[str, Scope]
) -> None:
    assert await memory.forget(spaces["support"]) == 5
    left = {n.scope_key for n in await internals(memory).store.query_subtree(spaces["user"])}
    assert left == {spaces[n].key for n in ("user", "sales", "support2", "conv-support")}
    assert await memory.forget(spaces["user"]) == 4 * 5
    assert {n.scope_key for n in await internals(memory).store.query_subtree(spaces["org"])} == {
        spaces[n].key for n in ("org", "org-support", "org-sales")
    }
