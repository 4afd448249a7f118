"""Write-time dedup of semantic facts: a fact ≥ 0.85 similar to a live fact of the same scope,
or whose label contains (or is contained in) one, merges into it; different facts stay apart;
AGENT_IDENTITY and SOUL nodes are never merged into. Uses the real MiniLM where meaning matters."""

from __future__ import annotations

import pytest

from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.support.memory_internals import internals


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The user's favourite colour is blue", "The user's favorite color is blue"),
        ("Alice works at Acme Corp as an engineer", "Alice is an engineer at Acme Corp"),
        ("Carol is allergic to peanuts", "Carol has a peanut allergy"),
    ],
)
async def test_a_paraphrase_merges_into_the_existing_fact(
    semantic_memory: Memory, tenant: Scope, first: str, second: str
) -> None:
    mem = semantic_memory
    a = await mem.remember(tenant, first, importance=4.0)
    b = await mem.remember(tenant, second, importance=6.0, properties={"source": "chat"})
    assert b.id == a.id
    facts = await internals(mem).semantic.query_facts(tenant)
    assert len(facts) == 1
    merged = facts[0]
    assert merged.label == max(first, second, key=len)  # the longer label is kept
    assert merged.importance == 6.0 and merged.properties == {"source": "chat", "merges": 1}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("User likes tea", "User likes coffee"),
        ("Bob lives in Paris", "Bob owns a red bicycle"),
        ("Dave plays the violin", "The server runs on port 8080"),
    ],
)
async def test_different_facts_are_kept_apart(semantic_memory: Memory, tenant: Scope, first: str, second: str) -> None:
    a = await semantic_memory.remember(tenant, first)
    b = await semantic_memory.remember(tenant, second)
    assert a.id != b.id
    assert len(await internals(semantic_memory).semantic.query_facts(tenant)) == 2


async def test_label_containment_merges_even_when_vectors_differ(memory: Memory, tenant: Scope) -> None:
    # Bag-of-words vectors: "kayak" and "Alice's red kayak" are far apart, but one label contains the other.
    a = await memory.remember(tenant, "Alice's red kayak")
    b = await memory.remember(tenant, "red kayak", "bought in 2021, moored at the harbor")
    assert b.id == a.id
    merged = await internals(memory).store.get_node(tenant, a.id)
    assert merged is not None
    assert merged.label == "Alice's red kayak" and merged.content == "bought in 2021, moored at the harbor"


async def test_short_labels_do_not_merge_by_containment(memory: Memory, tenant: Scope) -> None:
    a = await memory.remember(tenant, "cat")
    b = await memory.remember(tenant, "the cat sat on a mat near the concatenated catalogue")
    assert a.id != b.id


async def test_dedup_is_per_scope_and_can_be_turned_off(semantic_memory: Memory, tenant: Scope) -> None:
    mem = semantic_memory
    child = tenant.child("user", "u")
    parent = await mem.remember(tenant, "Carol is allergic to peanuts")
    own = await mem.remember(child, "Carol has a peanut allergy")
    assert own.id != parent.id and own.scope_key == child.key  # a parent's fact is never rewritten from below
    forced = await internals(mem).semantic.store_fact(child, "Carol has a peanut allergy!", dedup=False)
    assert forced.id != own.id


async def test_identity_and_soul_nodes_are_protected_from_merges(semantic_memory: Memory, tenant: Scope) -> None:
    mem = semantic_memory
    identity = await internals(mem).semantic.ensure_identity(tenant, "I am Hippo, a careful and friendly assistant")
    soul = await internals(mem).semantic.soul(tenant, "bob")
    same_words = await mem.remember(tenant, "AGENT_IDENTITY", "I am Hippo, a careful and friendly assistant")
    profile = await mem.remember(tenant, "SOUL:bob profile", "Profile of bob")
    assert same_words.id != identity.id and profile.id != soul.id
    stored = await internals(mem).store.get_node(tenant, identity.id)
    assert stored is not None and stored.content == "I am Hippo, a careful and friendly assistant"
    assert "merges" not in stored.properties


async def test_superseded_and_retracted_facts_are_not_merge_targets(semantic_memory: Memory, tenant: Scope) -> None:
    mem = semantic_memory
    old = await mem.remember(tenant, "The project deadline is Friday", key="deadline")
    new = await mem.remember(tenant, "The project deadline is next Monday", key="deadline")
    gone = await mem.remember(tenant, "Carol is allergic to peanuts")
    await mem.retract(tenant, gone.id, reason="test", actor="tester")
    again = await mem.remember(tenant, "The deadline for the project is on Friday")
    fresh = await mem.remember(tenant, "Carol has a peanut allergy")
    assert again.id != old.id  # may merge into the current version, never into the superseded one
    assert fresh.id != gone.id
    assert new.id != old.id


async def test_an_ancestors_similar_facts_cannot_hide_the_scopes_own_duplicate(memory: Memory, tenant: Scope) -> None:
    child = tenant.child("user", "u")
    for i in range(8):  # the parent's facts are all nearer the new one than the child's own
        await internals(memory).semantic.store_fact(tenant, f"carol peanut allergy {'x' * i}", dedup=False)
    mine = await memory.remember(child, "carol peanut allergy noted today")
    again = await memory.remember(child, "carol peanut allergy")
    assert again.id == mine.id
    assert await internals(memory).semantic.count(child) == 1 and await internals(memory).semantic.count(tenant) == 8
