"""An answer the agent drew from memory is stored as a turn that records its sources
(``DERIVED_FROM``), and recall ranks it below them: memory does not start citing itself."""

from __future__ import annotations

from hippograph.agent import demo_model
from hippograph.memory import Memory
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


async def test_an_answer_from_memory_ranks_below_the_fact_and_turn_it_came_from(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    user = tenant.child("user", "sam")
    agent = make_agent(demo_model())
    told = await agent.run(user, "I live in Lisbon.")
    assert told.text.startswith("Got it: you live in Lisbon.")
    [said] = await agent.drain()
    [fact_id] = said.mentions
    source_turn = said.turn_event_id

    asked = await agent.run(user, "Where do I live now?")
    assert "The user lives in Lisbon." in asked.text
    [answered] = await agent.drain()
    answer_turn = answered.turn_event_id
    assert answer_turn is not None and source_turn is not None

    everything = await memory.recall(user, "Where do I live now?")  # working memory too
    first = everything.items[0].node
    assert first.id != answer_turn and "Where do I live now?" not in first.content, first.content

    result = await memory.recall(user, "Where do I live now?", layers=[Layer.SEMANTIC, Layer.EPISODIC])
    ranked = [i.node.id for i in result.items]
    assert {fact_id, source_turn, answer_turn} <= set(ranked)
    assert ranked.index(fact_id) < ranked.index(answer_turn)
    assert ranked.index(source_turn) < ranked.index(answer_turn)
    sources = {
        n.id for n, _ in await internals(memory).store.get_neighbors(user, answer_turn, Relationship.DERIVED_FROM)
    }
    assert {fact_id, source_turn} <= sources
    [answer] = [i for i in result.items if i.node.id == answer_turn]
    assert {fact_id, source_turn} <= set(answer.below)
    assert "below its sources" in answer.explain()


async def test_a_recorded_exchange_names_the_memories_its_reply_drew_on(tenant: Scope, memory: Memory) -> None:
    capability = memory.for_scope(tenant)
    first = await capability.record("The boiler sits in the cellar.", "Noted.")
    other = await capability.record("My sister plays the cello.", "Lovely.")
    assert first.turn_event_id is not None and other.turn_event_id is not None
    shown = [first.turn_event_id, other.turn_event_id, "not-a-memory-id", "not an id!"]
    second = await capability.record("Where is the boiler?", "It sits in the cellar.", drawn_from=shown)
    assert second.turn_event_id is not None and second.failures == []
    [node] = await internals(memory).store.get_nodes(tenant, [second.turn_event_id])
    assert node.properties["drawn_from"] == [first.turn_event_id]
    linked = await internals(memory).store.get_neighbors(tenant, second.turn_event_id, Relationship.DERIVED_FROM)
    assert [n.id for n, _ in linked] == [first.turn_event_id]
    [working] = await internals(memory).store.get_nodes(tenant, second.working_ids)
    assert working.layer is Layer.WORKING and working.properties["drawn_from"] == [first.turn_event_id]

    # a reply that only acknowledges the user's own words draws on nothing shown
    third = await capability.record("The boiler is new.", "Noted: the boiler is new.", drawn_from=shown)
    assert third.turn_event_id is not None
    [node] = await internals(memory).store.get_nodes(tenant, [third.turn_event_id])
    assert "drawn_from" not in node.properties
