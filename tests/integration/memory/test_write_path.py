"""``Memory.write``: one memory op through the commit path, for a caller that answers with the
stored memory or an error (the API and MCP) — scrubbed, validated and audited as a model's ops
are by ``Memory.commit``."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.ops import CreateEvent, RegisterSkill, RetractNode, SetTrigger, UpsertNode
from hippograph.scope import Scope
from tests.support.memory_internals import internals

SECRET = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"


async def test_a_written_fact_is_scrubbed_keyed_and_returned_as_stored(memory: Memory, tenant: Scope) -> None:
    op = UpsertNode(
        op="upsert_node", label="Ana's home", content=f"Ana lives in Lisbon; her key is {SECRET}.", key="ana.home",
        properties={"city": "Lisbon", "api_key": SECRET},
    )  # fmt: skip
    written = await memory.write(tenant, op, actor="tester")
    fact = written.stored
    assert written.id == fact.id and fact.layer is Layer.SEMANTIC and fact.key == "ana.home"
    assert SECRET not in fact.content and "Lisbon" in fact.content
    assert "api_key" not in fact.properties and fact.properties["city"] == "Lisbon"
    [stored] = await internals(memory).store.get_nodes(tenant, [fact.id])
    assert stored.content == fact.content

    newer = UpsertNode(op="upsert_node", label="Ana's home", content="Ana moved to Porto.", key="ana.home")
    moved = (await memory.write(tenant, newer, actor="tester")).stored
    assert [f.id for f in await internals(memory).semantic.history(tenant, "ana.home")] == [fact.id, moved.id]


async def test_events_skills_and_triggers_keep_what_their_callers_send(memory: Memory, tenant: Scope) -> None:
    event = await memory.write(
        tenant, CreateEvent(op="create_event", content="Ana adopted a cat.", session_id="s1"), actor="tester"
    )
    assert event.stored.layer is Layer.EPISODIC and event.stored.session_id == "s1"
    skill = await memory.write(
        tenant,
        RegisterSkill(op="register_skill", name="Feed the cat", steps=["open a tin"], properties={"source": "api"}),
        actor="tester",
    )
    assert skill.stored.properties["source"] == "api" and skill.stored.properties["status"] == "draft"
    trigger = await memory.write(
        tenant, SetTrigger(op="set_trigger", condition="Ana visits", task="ask about the cat"), actor="tester"
    )
    assert trigger.stored.layer is Layer.PROSPECTIVE and trigger.gate is None


async def test_a_retraction_names_its_actor_and_a_wrong_id_raises(memory: Memory, tenant: Scope) -> None:
    fact = await memory.remember(tenant, "Ana's cat", "Ana's cat is called Miso.")
    written = await memory.write(
        tenant, RetractNode(op="retract_node", id=fact.id, reason="wrong cat"), actor="key alice"
    )
    assert written.id == fact.id and written.node is None
    with pytest.raises(InvalidInputError) as no_node:
        _ = written.stored
    assert no_node.value.field == "op"
    stored = await internals(memory).store.query_nodes(tenant, {"include_retracted": True, "ids": [fact.id]})
    assert stored[0].retracted and stored[0].retraction == {"actor": "key alice", "reason": "wrong cat"}
    with pytest.raises(InvalidInputError) as wrong:
        await memory.write(tenant, RetractNode(op="retract_node", id="nosuchmemory", reason="x"), actor="key alice")
    assert wrong.value.field == "id"
    report = await memory.commit(tenant, [RetractNode(op="retract_node", id="nosuchmemory", reason="x")])
    assert report.applied == [] and report.failed[0]["op"] == "retract_node"
