"""Supersession: a keyed fact that changes is replaced, never overwritten. The old version keeps
its text and gets ``superseded_by`` / ``valid_until``, the new one SUPERSEDES it, and recall
prefers the current one (score part ``currency``)."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError
from hippograph.memory import Memory
from hippograph.retrieval.scoring import SUPERSEDED_FACTOR
from hippograph.scope import Scope
from tests.integration.memory.helpers import TickingClock, edges_of, raw_memories
from tests.support.memory_internals import internals


async def test_a_keyed_fact_is_superseded_by_its_new_value(memory: Memory, tenant: Scope) -> None:
    old = await memory.remember(tenant, "Bob lives in Porto", key="bob.city")
    new = await memory.remember(tenant, "Bob lives in Berlin", key="bob.city")
    assert new.id != old.id
    stored = await internals(memory).store.get_node(tenant, old.id)
    assert stored is not None
    assert stored.label == "Bob lives in Porto"  # the old text is kept
    assert stored.superseded_by == new.id and stored.valid_until is not None
    assert stored.valid_until >= old.valid_from  # type: ignore[operator]
    current = await internals(memory).store.get_node(tenant, new.id)
    assert current is not None and current.superseded_by is None and current.valid_until is None
    sup = [e for e in await edges_of(internals(memory).store.conn, tenant) if e["type"] == "SUPERSEDES"]
    assert [(e["source"], e["target"]) for e in sup] == [(new.id, old.id)]
    assert [f.id for f in await internals(memory).semantic.history(tenant, "bob.city")] == [old.id, new.id]
    live = await internals(memory).semantic.query_facts(tenant, include_superseded=False)
    assert [f.id for f in live] == [new.id]


async def test_a_chain_of_changes_keeps_every_version(memory: Memory, tenant: Scope) -> None:
    versions = [await memory.remember(tenant, f"Bob's team is {t}", key="bob.team") for t in ("red", "blue", "gold")]
    raw = await raw_memories(internals(memory).store.conn, tenant)
    assert raw[versions[0].id]["superseded_by"] == versions[1].id
    assert raw[versions[1].id]["superseded_by"] == versions[2].id
    assert "superseded_by" not in raw[versions[2].id]
    assert [f.label for f in await internals(memory).semantic.history(tenant, "bob.team")] == [
        "Bob's team is red", "Bob's team is blue", "Bob's team is gold",
    ]  # fmt: skip


async def test_the_same_value_again_changes_nothing(memory: Memory, tenant: Scope) -> None:
    first = await memory.remember(tenant, "Bob lives in Porto", key="bob.city")
    again = await memory.remember(tenant, "  bob LIVES in porto ", key="bob.city")
    assert again.id == first.id
    assert len(await internals(memory).semantic.history(tenant, "bob.city")) == 1


async def test_the_same_value_again_confirms_it(memory: Memory, tenant: Scope, clock: TickingClock) -> None:
    first = await memory.remember(tenant, "Bob lives in Porto", key="bob.city")
    again = await memory.remember(tenant, "Bob lives in Porto", key="bob.city")
    assert again.id == first.id and again.content == first.content
    assert first.updated_at < again.updated_at == clock.last  # recall's recency counts from here


async def test_keys_are_per_scope(memory: Memory, tenant: Scope) -> None:
    child = tenant.child("user", "u")
    parent_fact = await memory.remember(tenant, "default city Porto", key="city")
    child_fact = await memory.remember(child, "my city Berlin", key="city")
    stored = await internals(memory).store.get_node(tenant, parent_fact.id)
    assert stored is not None and stored.superseded_by is None  # a child never rewrites its parent
    assert {f.id for f in await internals(memory).semantic.history(child, "city")} == {
        parent_fact.id,
        child_fact.id,
    }


async def test_recall_prefers_the_current_fact(memory: Memory, tenant: Scope) -> None:
    old = await memory.remember(tenant, "Bob lives in Porto near the river", key="bob.city")
    new = await memory.remember(tenant, "Bob lives in Berlin near the river", key="bob.city")
    await memory.remember(tenant, "the cafeteria serves soup on mondays")
    result = await memory.recall(tenant, "where does Bob live near the river")
    by_id = {i.node.id: i for i in result.items}
    assert result.ids[0] == new.id and old.id not in by_id  # old versions are history (issue 9 #4)
    assert by_id[new.id].parts.currency == 1.0
    assert [f.id for f in await internals(memory).semantic.history(tenant, "bob.city")] == [old.id, new.id]


async def test_a_fact_past_its_validity_ranks_below_a_current_one(memory: Memory, tenant: Scope) -> None:
    ended = await memory.remember(tenant, "Bob rents a flat near the river")
    await internals(memory).store.update_node(tenant, ended.id, {"valid_until": 1.0})
    current = await memory.remember(tenant, "Bob owns a house near the river")
    by_id = {i.node.id: i for i in (await memory.recall(tenant, "Bob near the river")).items}
    assert by_id[ended.id].parts.currency == SUPERSEDED_FACTOR < 1.0 == by_id[current.id].parts.currency


async def test_explicit_supersedes_links_two_facts(memory: Memory, tenant: Scope) -> None:
    old = await memory.remember(tenant, "the office is on floor 3")
    new = await internals(memory).semantic.store_fact(tenant, "the office moved to floor 7", supersedes=old.id)
    stored = await internals(memory).store.get_node(tenant, old.id)
    assert stored is not None and stored.superseded_by == new.id


async def test_superseding_a_fact_of_another_scope_is_refused_before_anything_is_written(
    memory: Memory, tenant: Scope
) -> None:
    child = tenant.child("user", "u")
    parent_fact = await memory.remember(tenant, "the office is on floor 3")
    with pytest.raises(InvalidInputError, match="supersedes"):
        await internals(memory).semantic.store_fact(child, "the office is on floor 9", supersedes=parent_fact.id)
    with pytest.raises(InvalidInputError, match="supersedes"):
        await internals(memory).semantic.store_fact(tenant, "floor 12 now", supersedes="no-such-fact")
    assert await internals(memory).semantic.count(child) == 0
    assert [f.id for f in await internals(memory).semantic.query_facts(tenant)] == [parent_fact.id]


async def test_recall_prefers_the_current_fact_even_when_the_versions_are_alone(memory: Memory, tenant: Scope) -> None:
    old = await memory.remember(tenant, "Bob lives in Porto near the river", key="bob.city")
    new = await memory.remember(tenant, "Bob lives in Berlin near the river", key="bob.city")
    result = await memory.recall(tenant, "where does Bob live near the river")
    assert result.ids == [new.id]  # the old version is history, not an answer (issue 9 #4)
    assert old.id in {f.id for f in await internals(memory).semantic.history(tenant, "bob.city")}
