"""Scope rules per layer (reference §3): semantic and episodic blend across ancestors with
scope-distance weighting (own 1.0, parent 0.5, grandparent 0.25); procedural shadows; working
and prospective see their own scope only; nothing from a sibling or another tenant, ever."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence

import pytest

from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.memory_internals import internals

QUERY = "harbor lantern schedule"


@pytest.fixture
async def other_tenant(store: GraphStore) -> AsyncIterator[Scope]:
    scope = Scope.root("org", f"other-{uuid.uuid4().hex[:12]}")
    yield scope
    await store.delete_subtree(scope)


async def seed_everywhere(memory: Memory, scopes: dict[str, Scope]) -> None:
    """The same kind of memory, matching QUERY equally well, in every scope."""
    for name, scope in scopes.items():
        await internals(memory).semantic.store_fact(scope, f"harbor lantern schedule fact of {name}", dedup=False)
        await internals(memory).episodic.store_event(scope, f"harbor lantern schedule event of {name}")
        await internals(memory).working.push(scope, f"harbor lantern schedule turn of {name}")
        await internals(memory).prospective.set_trigger(scope, f"harbor lantern schedule of {name}", "remind")
        await internals(memory).procedural.store_skill(
            scope, "harbor lantern schedule", [f"how {name} does it"], status="approved"
        )


@pytest.fixture
async def tree(memory: Memory, tenant: Scope, other_tenant: Scope) -> dict[str, Scope]:
    team = tenant.child("team", "t")
    scopes = {
        "org": tenant, "team": team, "user": team.child("user", "u"), "sibling": team.child("user", "v"),
        "cousin": tenant.child("team", "x").child("user", "u"), "other": other_tenant,
        "other-user": other_tenant.child("team", "t").child("user", "u"),
    }  # fmt: skip
    await seed_everywhere(memory, scopes)
    await internals(memory).semantic.store_fact(scopes["user"], "the cafeteria serves soup on mondays")
    await internals(memory).episodic.store_event(scopes["user"], "the cafeteria served soup on monday")
    return scopes


def owners(items: Sequence[RecallItem | MemoryNode], scopes: dict[str, Scope]) -> list[str]:
    by_key = {s.key: name for name, s in scopes.items()}
    return [by_key[(i.node if isinstance(i, RecallItem) else i).scope_key] for i in items]


def matching(items: list[RecallItem]) -> list[RecallItem]:
    return [i for i in items if "harbor" in i.node.text]


@pytest.mark.parametrize("layer", [Layer.SEMANTIC, Layer.EPISODIC])
async def test_semantic_and_episodic_blend_ancestors_weighted_by_distance(
    memory: Memory, tree: dict[str, Scope], layer: Layer
) -> None:
    items = matching((await memory.recall(tree["user"], QUERY, layers=[layer], top_k=20)).items)
    assert owners(items, tree) == ["user", "team", "org"]
    assert [(i.scope_distance, i.parts.scope_weight) for i in items] == [
        (0, 1.0),
        (1, 0.5),
        (2, 0.25),
    ]
    assert items[0].score > items[1].score > items[2].score
    from_team = await memory.recall(tree["team"], QUERY, layers=[layer], top_k=20)
    assert sorted(owners(matching(from_team.items), tree)) == ["org", "team"]


async def test_scope_weighting_orders_equally_relevant_memories_even_alone(memory: Memory, tenant: Scope) -> None:
    user = tenant.child("team", "t").child("user", "u")
    for scope in (tenant, user.parent, user):
        assert scope is not None
        await internals(memory).semantic.store_fact(scope, f"harbor lantern schedule fact of {scope.kind}", dedup=False)
    result = await memory.recall(user, QUERY, layers=[Layer.SEMANTIC])
    assert [i.scope_distance for i in result.items] == [0, 1, 2]
    assert result.items[0].score > result.items[1].score > result.items[2].score


async def test_scope_weighting_can_be_switched_off(memory: Memory, tree: dict[str, Scope]) -> None:
    from hippograph.retrieval.config import RecallConfig

    result = await internals(memory).engine.recall(tree["user"], QUERY, layers=[Layer.SEMANTIC], top_k=20,
                                        config=RecallConfig(scope_weighting=False))  # fmt: skip
    assert sorted(owners(matching(result.items), tree)) == ["org", "team", "user"]
    assert {i.parts.scope_weight for i in result.items} == {1.0}


async def test_procedural_deepest_scope_wins(memory: Memory, tree: dict[str, Scope]) -> None:
    result = await memory.recall(tree["user"], QUERY, layers=[Layer.PROCEDURAL], top_k=20)
    assert owners(result.items, tree) == ["user"]
    assert owners(await internals(memory).procedural.query_skills(tree["team"]), tree) == ["team"]
    assert owners(await internals(memory).procedural.query_skills(tree["org"]), tree) == ["org"]


async def test_working_memory_is_own_scope_only(memory: Memory, tree: dict[str, Scope]) -> None:
    assert owners(await internals(memory).working.retrieve(tree["user"], QUERY, top_k=20), tree) == ["user"]
    assert owners(await internals(memory).working.get_context(tree["team"]), tree) == ["team"]


async def test_prospective_is_own_scope_only(memory: Memory, tree: dict[str, Scope]) -> None:
    assert owners(await internals(memory).prospective.get_pending(tree["user"]), tree) == ["user"]
    assert owners(await internals(memory).prospective.get_pending(tree["org"]), tree) == ["org"]


async def test_nothing_from_a_sibling_a_cousin_or_another_tenant_ever(memory: Memory, tree: dict[str, Scope]) -> None:
    foreign = {"sibling", "cousin", "other", "other-user"}
    for reader in ("user", "team", "org", "sibling"):
        result = await memory.recall(tree[reader], QUERY, top_k=100)
        seen = set(owners(result.items, tree))
        assert not (seen & (foreign - {reader})), (reader, seen)
        for a in result.activation.activated:
            for step in a.path:
                if not step.node_id.startswith("cue:"):
                    node = await internals(memory).store.get_node(tree[reader], step.node_id)
                    assert node is not None, f"{reader} activated an invisible memory {step.node_id}"
    events = await internals(memory).episodic.query_events(tree["user"])
    assert sorted(owners(events, tree)) == ["org", "team", "user", "user"]
    facts = await internals(memory).semantic.query_facts(tree["other-user"])
    assert sorted(owners(facts, tree)) == ["other", "other-user"]


async def test_forgetting_a_scope_erases_its_subtree_and_nothing_else(memory: Memory, tree: dict[str, Scope]) -> None:
    deleted = await memory.forget(tree["team"])
    assert deleted == 3 * 5 + 2  # team, user and sibling: five memories each, and the user's two fillers
    assert await internals(memory).store.query_subtree(tree["team"]) == []
    left = await internals(memory).store.query_subtree(tree["org"])
    assert sorted({n.scope_key for n in left}) == sorted([tree["org"].key, tree["cousin"].key])
    assert len(await internals(memory).store.query_subtree(tree["other"])) == 10
