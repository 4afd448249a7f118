"""The Memory facade: bring-your-own facts, committing a model's memory ops (each
failure reported, never raised; credentials scrubbed), retraction, forgetting a scope."""

from __future__ import annotations

from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.ops import MEMORY_OP_ADAPTER
from hippograph.scope import Scope
from tests.support.memory_internals import internals

SECRET = "hunter2-secret"


def ops(*raw: dict[str, object]) -> list:  # type: ignore[type-arg]
    return [MEMORY_OP_ADAPTER.validate_python(r) for r in raw]


async def test_commit_applies_each_op_to_its_layer(memory: Memory, tenant: Scope) -> None:
    await memory.remember(tenant, "Acme Corp")
    report = await memory.commit(tenant, ops(
        {"op": "upsert_node", "label": "Alice", "content": "Alice works at Acme",
         "relationships": [{"target": "Acme Corp", "type": "relates_to"}]},
        {"op": "create_event", "content": "Alice joined the harbor team", "mentions": ["Alice"]},
        {"op": "set_trigger", "condition": "Alice asks about leave", "task": "point to the HR page"},
        {"op": "register_skill", "name": "onboard a new hire", "steps": ["create accounts", "book a buddy"]},
    ))  # fmt: skip
    assert report.failed == [] and [a["op"] for a in report.applied] == [
        "upsert_node", "create_event", "set_trigger", "register_skill",
    ]  # fmt: skip
    nodes = [await internals(memory).store.get_node(tenant, i) for i in report.touched_ids]
    assert all(n is not None for n in nodes)
    alice, event, trigger, skill = nodes  # type: ignore[misc]
    assert [n.layer for n in (alice, event, trigger, skill)] == [
        Layer.SEMANTIC, Layer.EPISODIC, Layer.PROSPECTIVE, Layer.PROCEDURAL,
    ]  # fmt: skip
    assert skill.properties["status"] == "draft"  # a model's skill waits for a human
    links = {(e.relationship.value, n.label) for n, e in await internals(memory).store.get_neighbors(tenant, alice.id)}
    assert ("RELATES_TO", "Acme Corp") in links and (
        "MENTIONS",
        "Alice joined the harbor team",
    ) in {(e.relationship.value, n.content) for n, e in await internals(memory).store.get_neighbors(tenant, alice.id)}


async def test_commit_reports_failures_and_goes_on(memory: Memory, tenant: Scope) -> None:
    other = await memory.remember(tenant.child("user", "other"), "not yours")
    report = await memory.commit(tenant.child("user", "me"), ops(
        {"op": "retract_node", "id": other.id, "reason": "nope"},
        {"op": "upsert_node", "label": "fine fact"},
        {"op": "retract_node", "id": "no-such-id", "reason": "nope"},
    ))  # fmt: skip
    assert [f["index"] for f in report.failed] == [0, 2] and [a["index"] for a in report.applied] == [1]
    still = await internals(memory).store.get_node(tenant.child("user", "other"), other.id)
    assert still is not None and not still.retracted


async def test_commit_scrubs_credentials_from_every_text_it_stores(memory: Memory, tenant: Scope) -> None:
    report = await memory.commit(tenant, ops(
        {"op": "upsert_node", "label": "db access", "content": f"password: {SECRET}",
         "properties": {"password": SECRET, "note": f"token={SECRET}"}},
        {"op": "create_event", "content": f"used api_key={SECRET}", "properties": {"secret": SECRET}},
        {"op": "set_trigger", "condition": "the db is down", "task": f"log in with password: {SECRET}"},
        {"op": "register_skill", "name": "restart the db", "steps": [f"login with password: {SECRET}", "restart"],
         "context": f"token: {SECRET}"},
    ))  # fmt: skip
    assert report.failed == []
    for node_id in report.touched_ids:
        stored = await internals(memory).store.get_node(tenant, node_id)
        assert stored is not None
        assert SECRET not in stored.model_dump_json(), stored.layer


async def test_retracted_memories_are_invisible_to_recall(memory: Memory, tenant: Scope) -> None:
    keep = await memory.remember(tenant, "harbor lantern is green")
    gone = await memory.remember(tenant, "harbor lantern was red", key="x")
    await memory.retract(tenant, gone.id, reason="wrong", actor="alice")
    result = await memory.recall(tenant, "harbor lantern", top_k=10)
    assert result.ids == [keep.id]
    stored = await internals(memory).store.query_nodes(tenant, {"include_retracted": True, "ids": [gone.id]})
    assert stored[0].retracted and stored[0].retraction == {"actor": "alice", "reason": "wrong"}
