"""Fault injection: recall, activation and consolidation raising never cost the reply; they
become StageFailed events. Invalid ops are reported, not fatal. Broken hooks are ignored."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hippograph.agent import AgentConfig, AgentHooksBase, RecordingHooks, demo_model
from hippograph.agent.events import AgentEvent, MemoryExtracted, StageFailed
from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.errors import StoreError
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.retrieval import engine as engine_module
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals


def _boom(*_: Any, **__: Any) -> Any:
    raise StoreError("injected failure", retryable=True)


async def _seed(memory: Memory, scope: Scope) -> None:
    await memory.remember(scope, "user's dog", "The user's dog is called Rex.")
    await internals(memory).working.push(scope, "User: hello | Agent: hi there", kind="turn")


async def test_recall_raising_still_replies_with_an_error_event_and_working_memory(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _seed(memory, tenant)
    monkeypatch.setattr(internals(memory).engine, "recall", _boom)
    model = demo_model()
    agent = make_agent(model)
    response = await agent.run(tenant, "What is my dog called?")
    assert response.text.startswith("I don't remember")
    [error] = response.errors
    assert (error.stage, error.error_type, error.recoverable) == ("hydrate", "StoreError", True)
    assert response.activations == []
    context = model.requests[0].system.context  # type: ignore[union-attr]
    assert "User: hello | Agent: hi there" in context  # the fallback: working memory
    assert [e.type for e in response.events][-1] == "message_end"


async def _late_boom(*_: Any, **__: Any) -> Any:
    await asyncio.sleep(0.05)
    raise StoreError("injected late failure", retryable=True)


async def test_hydration_reads_failing_together_are_reported_in_one_order(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recall, triggers and persona are read at once; their failures still come as recall's,
    the triggers', the persona's, whichever finished first (the triggers fail last here)."""
    await _seed(memory, tenant)
    monkeypatch.setattr(internals(memory).engine, "recall", _boom)
    monkeypatch.setattr(internals(memory).prospective, "for_turn", _late_boom)
    monkeypatch.setattr(internals(memory).semantic, "persona", _boom)
    model = demo_model()
    response = await make_agent(model).run(tenant, "What is my dog called?")
    assert [(e.stage, e.message) for e in response.errors] == [
        ("hydrate", "injected failure"),
        ("hydrate.triggers", "injected late failure"),
        ("hydrate.persona", "injected failure"),
    ]
    assert response.text.startswith("I don't remember")
    assert "User: hello | Agent: hi there" in model.requests[0].system.context  # type: ignore[union-attr]


async def test_activation_raising_still_replies(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _seed(memory, tenant)
    monkeypatch.setattr(engine_module, "edge_arrivals", _boom)  # inside the activation step
    agent = make_agent(demo_model())
    events = [e async for e in agent.stream(tenant, "What is my dog called?")]
    errors = [e for e in events if isinstance(e, StageFailed)]
    # only activation degraded (issue 9 #9): the direct hits still reach the prompt
    assert [(e.stage, e.message) for e in errors] == [("hydrate.activation", "injected failure")]
    assert events[-1].type == "message_end"
    assert any(e.type == "text_delta" for e in events)


async def test_consolidation_raising_is_reported_not_raised(
    tenant: Scope,
    memory: Memory,
    make_agent: MakeAgent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memory, "commit", _boom)
    monkeypatch.setattr(internals(memory).episodic, "store_turn", _boom)
    hooks = RecordingHooks()
    agent = make_agent(demo_model(), hooks=[hooks])
    first = await agent.run(tenant, "My dog is called Rex.")
    assert first.text == "Got it: your dog is called Rex. I'll remember that."
    assert first.errors == []  # the reply never waits for consolidation
    [report] = await agent.drain()
    assert [e.stage for e in report.errors] == ["store_turn", "commit"]
    assert report.working_ids, "the steps that work still ran"
    background = [e for e in hooks.events if isinstance(e, StageFailed)]
    assert [e.stage for e in background] == ["store_turn", "commit"]
    assert ("consolidate", report.ms) in hooks.stages

    monkeypatch.undo()
    second = await agent.run(tenant, "Thanks!", session_id=first.session_id)
    assert [e.stage for e in second.errors] == ["store_turn", "commit"]
    assert second.events[0].type == "stage_failed" and second.events[1].type == "stage_failed"
    third = await agent.run(tenant, "Bye.", session_id=first.session_id)
    assert third.errors == []  # reported once


async def test_quick_nap_runs_every_n_turns_and_its_failure_is_reported(
    tenant: Scope, conn: Neo4jConnection, make_agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    consolidator = SleepConsolidator(conn, ConsolidationConfig(turns_between_naps=2))
    agent = make_agent(demo_model(), consolidator=consolidator)
    naps = []
    for message in ["My dog is called Rex.", "I live in Lisbon.", "Hello.", "Bye."]:
        response = await agent.run(tenant, message)
        assert response.consolidation is not None
        naps.append(response.consolidation.quick_nap)
        reports = await agent.drain()
        assert reports[0].errors == []
        assert (reports[0].nap is not None) == response.consolidation.quick_nap
    assert naps == [False, True, False, True]

    monkeypatch.setattr(consolidator, "quick_nap", _boom)
    for message in ["One.", "Two."]:
        await agent.run(tenant, message)
    reports = await agent.drain()
    assert [e.stage for r in reports for e in r.errors] == ["quick_nap"]


async def test_invalid_ops_are_reported_and_valid_ones_applied(
    tenant: Scope, memory: Memory, make_agent: MakeAgent
) -> None:
    block = (
        '{"ops": [{"op": "upsert_node", "label": "city", "content": "Lisbon"},'
        '{"op": "teleport", "where": "moon"},'
        '{"op": "set_trigger", "condition": "", "task": "x"},'
        '{"op": "retract_node", "id": "no-such-memory", "reason": "wrong"}]}'
    )
    agent = make_agent(ScriptedModel([f"Noted.<MEMORY_EXTRACT>{block}</MEMORY_EXTRACT>", "Ok."]))
    response = await agent.run(tenant, "I moved to Lisbon.")
    assert response.text == "Noted."
    extracted = response.memory
    assert isinstance(extracted, MemoryExtracted)
    assert [op.op for op in extracted.ops] == ["upsert_node", "retract_node"]
    assert [i.index for i in extracted.invalid] == [1, 2]
    assert "unknown op 'teleport'" in extracted.invalid[0].reason
    assert "condition" in extracted.invalid[1].reason
    [report] = await agent.drain()
    assert [e.stage for e in report.errors] == ["commit"]  # the retract names nothing
    assert [a["op"] for a in report.commit.applied] == ["upsert_node"]
    facts = [n for n in await internals(memory).store.query_subtree(tenant) if n.layer is Layer.SEMANTIC]
    assert [f.label for f in facts if f.label != "AGENT_IDENTITY"] == ["city"]  # and the seeded persona
    later = await agent.run(tenant, "ok", session_id=response.session_id)
    assert [e.stage for e in later.errors] == ["commit"]


async def test_malformed_block_gives_no_ops_and_a_reason(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedModel(['Sure.<MEMORY_EXTRACT>{"ops": [oops</MEMORY_EXTRACT>']))
    response = await agent.run(tenant, "Remember this.")
    assert response.text == "Sure."
    assert response.memory is not None and response.memory.ops == []
    assert "not valid JSON" in (response.memory.reason or "")
    assert response.consolidation is not None and response.consolidation.op_count == 0


class _BrokenHooks(AgentHooksBase):
    def on_event(self, event: AgentEvent) -> None:
        raise RuntimeError("hook bug")

    def on_stage(self, name: str, ms: float) -> None:
        raise RuntimeError("hook bug")


async def test_a_broken_hook_never_breaks_a_turn(tenant: Scope, make_agent: MakeAgent) -> None:
    agent = make_agent(demo_model(), hooks=[_BrokenHooks()])
    response = await agent.run(tenant, "Hello there.")
    assert response.text.startswith("I'm the offline scripted model")
    assert response.errors == []


async def test_every_stage_can_be_switched_off(tenant: Scope, memory: Memory, make_agent: MakeAgent) -> None:
    await _seed(memory, tenant)
    config = AgentConfig.model_validate(
        {"hydrate": {"enabled": False}, "extraction": {"enabled": False},
         "consolidation": {"enabled": False}, "sessions": {"history_turns": 0}, "persona": {"enabled": False}}
    )  # fmt: skip
    model = demo_model()
    agent = make_agent(model, config)
    first = await agent.run(tenant, "My dog is called Rex.")
    second = await agent.run(tenant, "What is my dog called?", session_id=first.session_id)
    assert first.text == "Got it: your dog is called Rex. I'll remember that."  # still stripped
    assert [e.type for e in first.events if e.type not in {"text_delta"}] == [
        "message_start", "usage", "message_end",
    ]  # fmt: skip
    assert first.memory is None and first.consolidation is None and first.activations == []
    assert second.text.startswith("I don't remember")
    assert [m.role for m in model.requests[-1].messages] == ["user"]
    assert await agent.drain() == []
    assert len(await internals(memory).store.query_subtree(tenant)) == 2  # only the seed
