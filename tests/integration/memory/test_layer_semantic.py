"""Semantic memory ("what"): facts and entities, label queries, the AGENT_IDENTITY and SOUL
nodes, links between facts."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError
from hippograph.layers.semantic import AGENT_IDENTITY
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from tests.support.memory_internals import internals


async def test_store_fact_writes_a_semantic_memory(memory: Memory, tenant: Scope) -> None:
    fact = await internals(memory).semantic.store_fact(tenant, "  Bob's home city  ", "Bob lives in Porto",
                                            properties={"source": "chat"}, importance=7.0)  # fmt: skip
    assert fact.layer is Layer.SEMANTIC and fact.label == "Bob's home city" and fact.importance == 7.0
    assert fact.valid_from is not None and fact.superseded_by is None and fact.embedding is not None
    stored = await internals(memory).store.get_node(tenant, fact.id)
    assert stored is not None and stored.text == "Bob's home city: Bob lives in Porto"
    assert stored.properties == {"source": "chat"}


@pytest.mark.parametrize("label", ["", "   ", None, 3])
async def test_a_fact_needs_a_label(memory: Memory, tenant: Scope, label: object) -> None:
    with pytest.raises(InvalidInputError):
        await internals(memory).semantic.store_fact(tenant, label)  # type: ignore[arg-type]
    assert await internals(memory).semantic.count(tenant) == 0


async def test_out_of_range_importance_is_refused(memory: Memory, tenant: Scope) -> None:
    with pytest.raises(InvalidInputError, match="importance"):
        await internals(memory).semantic.store_fact(tenant, "too important", importance=11)


async def test_query_facts_by_label_and_prefix(memory: Memory, tenant: Scope) -> None:
    await memory.remember(tenant, "project:apollo deadline is friday")
    await memory.remember(tenant, "project:gemini budget grows")
    await memory.remember(tenant, "favourite drink oolong")
    by_prefix = await internals(memory).semantic.query_facts(tenant, label_prefix="project:")
    assert sorted(f.label for f in by_prefix) == [
        "project:apollo deadline is friday",
        "project:gemini budget grows",
    ]
    exact = await internals(memory).semantic.query_facts(tenant, label="favourite drink oolong")
    assert [f.label for f in exact] == ["favourite drink oolong"]
    assert await internals(memory).semantic.query_facts(tenant, label="favourite") == []
    assert len(await internals(memory).semantic.query_facts(tenant, limit=1)) == 1


async def test_identity_and_soul_are_singletons_of_their_scope(memory: Memory, tenant: Scope) -> None:
    child = tenant.child("user", "u")
    me = await internals(memory).semantic.ensure_identity(tenant, "I am Hippo, a careful assistant")
    again = await internals(memory).semantic.ensure_identity(tenant, "something else entirely")
    assert again.id == me.id and me.label == AGENT_IDENTITY and me.importance == 10.0
    own = await internals(memory).semantic.ensure_identity(child, "child persona")
    assert own.id != me.id and own.scope_key == child.key
    soul = await internals(memory).semantic.soul(tenant, "bob", {"tone": "dry"})
    assert soul.label == "SOUL:bob" and soul.properties == {"tone": "dry"} and soul.importance == 10.0
    assert (await internals(memory).semantic.soul(tenant, "bob")).id == soul.id
    assert len(await internals(memory).semantic.query_facts(tenant, label=AGENT_IDENTITY)) == 1


async def test_link_upserts_a_typed_weighted_edge(memory: Memory, tenant: Scope) -> None:
    a = await memory.remember(tenant, "Alice works at Acme")
    b = await memory.remember(tenant, "Acme builds rockets")
    first = await internals(memory).semantic.link(tenant, a.id, b.id, "RELATES_TO")
    second = await internals(memory).semantic.link(tenant, a.id, b.id, Relationship.RELATES_TO)
    assert first is not None and second is not None
    assert second.id == first.id and second.weight == first.weight + 1.0 == 2.0
    assert second.scope_key == tenant.key
    with pytest.raises(InvalidInputError):
        await internals(memory).semantic.link(tenant, a.id, b.id, "LIKES")


async def test_retrieve_finds_facts_only(memory: Memory, tenant: Scope) -> None:
    fact = await memory.remember(tenant, "the harbor lantern is green")
    await internals(memory).episodic.store_event(tenant, "we saw the harbor lantern")
    items = await internals(memory).semantic.retrieve(tenant, "harbor lantern")
    assert [i.node.id for i in items] == [fact.id]
