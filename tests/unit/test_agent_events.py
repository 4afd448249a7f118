"""The agent event stream: one discriminated union, JSON round trips, builders."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from hippograph.agent import events as ev
from hippograph.agent.fabrication import FabricationChecker
from hippograph.agent.findings import FabricationMode
from hippograph.agent.intent import Intent, TriageMode
from hippograph.agent.ops_block import extract_memory_ops
from hippograph.agent.triage import IntentClassifier, route_tools
from hippograph.llm.types import ToolSpec
from hippograph.ops import UpsertNode

pytestmark = pytest.mark.unit

SAMPLES: list[ev.AgentEvent] = [
    ev.MessageStart(message_id="msg_1", model="claude"),
    ev.ThinkingDelta(index=0, text="hmm"),
    ev.ThinkingSignature(index=0, signature="sig"),
    ev.TextDelta(index=1, text="Hello"),
    ev.ToolCallStart(index=2, id="toolu_1", name="hydrate_context"),
    ev.ToolCallDelta(index=2, id="toolu_1", partial_json='{"query": "dog"}'),
    ev.ToolResult(tool_use_id="toolu_1", name="hydrate_context", content="dog: Rex"),
    ev.Usage(input_tokens=10, output_tokens=5, cache_read_input_tokens=100),
    ev.Activation(
        nodes=[ev.ActivatedNode(id="n1", score=0.8, layer="semantic", hop=1)],
        paths=[ev.ActivationPath(node_ids=["n0", "n1"], relationships=["RELATES_TO"])],
        details={"budget_tokens": 2000},
    ),
    ev.MemoryExtracted(
        ops=[UpsertNode(op="upsert_node", label="Rex", content="the dog")],
        invalid=[ev.InvalidOpInfo(index=1, reason="missing 'op'")],
        strategy="memory_extract",
    ),
    ev.ConsolidationScheduled(op_count=2, quick_nap=True, task_id="t1"),
    ev.FabricationDetected(
        mode="observe",
        action="observed",
        findings=[ev.FabricationFindingInfo(kind="uuid", text="x", confidence=0.9)],
    ),
    ev.FabricationBlocked(confidence=0.9, min_confidence=0.8, findings=1, dropped_ops=2, reply="I can't confirm."),
    ev.IntentClassified(verdict="knowledge", mode="observe", knowledge_score=2, action_score=0),
    ev.ToolRoutingDecision(verdict="knowledge", mode="enforce", kept=["a"], dropped=["b"]),
    ev.MessageEnd(message_id="msg_1", stop_reason="end_turn"),
    ev.StageFailed(stage="recall", error_type="StoreError", message="boom"),
    ev.TriggerFired(id="t1", handle="t1", reason="condition", condition="Bob", task="ask", matched=["Bob"]),
    ev.ModelStart(call=1, model="claude"),
    ev.ModelPreCall(
        call=1,
        model="claude",
        max_tokens=64,
        system_chars=10,
        system_digest="ab",
        context_chars=0,
        messages=1,
        message_chars=5,
        estimated_input_tokens=4,
    ),
]


def test_every_event_type_is_in_the_union_and_has_a_unique_discriminator() -> None:
    members = typing.get_args(typing.get_args(ev.AgentEvent)[0])
    assert {type(s) for s in SAMPLES} == set(members)
    types = [s.type for s in SAMPLES]
    assert len(types) == len(set(types))


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.type)
def test_json_round_trip(event: ev.AgentEvent) -> None:
    line = event.model_dump_json()
    assert ev.AGENT_EVENT_ADAPTER.validate_json(line) == event


def test_unknown_type_is_rejected_and_events_are_frozen() -> None:
    with pytest.raises(ValidationError):
        ev.AGENT_EVENT_ADAPTER.validate_python({"type": "nope"})
    with pytest.raises(ValidationError):
        SAMPLES[3].text = "changed"  # type: ignore[union-attr]


def test_all_lists_every_event_and_payload_class() -> None:
    own = {
        name
        for name, value in vars(ev).items()
        if isinstance(value, type) and value.__module__ == ev.__name__ and name[0] != "_"
    }
    union = {cls.__name__ for cls in typing.get_args(typing.get_args(ev.AgentEvent)[0])}
    assert all(hasattr(ev, name) for name in ev.__all__)
    assert own | union <= set(ev.__all__)


def test_builders_from_stage_results() -> None:
    extracted = ev.MemoryExtracted.from_result(
        extract_memory_ops('ok <MEMORY_EXTRACT>[{"op": "nope"}]</MEMORY_EXTRACT>')
    )
    intent = IntentClassifier().classify("What is my dog's name?")
    classified = ev.IntentClassified.from_result(intent, TriageMode.OBSERVE)
    routing = route_tools(
        [ToolSpec(name="hydrate_context"), ToolSpec(name="deploy_service", description="Deploy")],
        Intent.KNOWLEDGE,
        mode=TriageMode.ENFORCE,
    )
    decision = ev.ToolRoutingDecision.from_routing(routing)
    report = FabricationChecker(FabricationMode.OBSERVE).check("I deployed the api.")
    detected = ev.FabricationDetected.from_report(report)
    clean = FabricationChecker(FabricationMode.OBSERVE).check("Hello.")
    error = ev.StageFailed.from_exception("consolidate", RuntimeError("x" * 900))

    assert extracted.invalid[0].index == 0 and extracted.strategy == "memory_extract"
    assert classified.verdict == "knowledge" and "what" in classified.matched
    assert (decision.kept, decision.dropped) == (["hydrate_context"], ["deploy_service"])
    assert detected is not None and detected.findings[0].kind == "verb_claim"
    assert ev.FabricationDetected.from_report(clean) is None
    assert error.error_type == "RuntimeError" and len(error.message) == 500


def test_the_old_error_name_is_a_deprecated_alias_of_stage_failed() -> None:
    with pytest.warns(DeprecationWarning, match="StageFailed"):
        old = ev.Error
    assert old is ev.StageFailed
    failed = ev.StageFailed(stage="hydrate", error_type="StoreError", message="down")
    assert failed.type == "stage_failed" and not isinstance(failed, Exception)


def test_fabrication_blocked_reaches_graphql_as_its_own_type() -> None:
    from hippograph.app.api.schema.events import FabricationBlockedEvent, to_graphql

    blocked = ev.FabricationBlocked(confidence=0.9, min_confidence=0.8, findings=2, dropped_ops=1, reply="Sorry.")
    shown = to_graphql(blocked)
    assert isinstance(shown, FabricationBlockedEvent)
    assert (shown.confidence, shown.min_confidence, shown.findings, shown.dropped_ops, shown.reply) == (
        0.9, 0.8, 2, 1, "Sorry.",
    )  # fmt: skip
