"""Extraction of the memory-ops block: the four strategies, stripping, op validation."""

from __future__ import annotations

import json

import pytest

from hippograph.agent.ops_block import extract_memory_ops
from hippograph.agent.ops_block_result import ExtractionStrategy, InvalidOp
from hippograph.models import Layer, Relationship
from hippograph.ops import (
    CreateEvent,
    RegisterSkill,
    RetractNode,
    SetTrigger,
    UpsertNode,
)

pytestmark = pytest.mark.unit

FACT = {
    "op": "upsert_node",
    "label": "Rex",
    "content": "The user's dog is a beagle named Rex.",
    "properties": {"species": "dog"},
    "importance": 7,
    "relationships": [{"target": "User", "type": "relates_to"}],
}
EVENT = {"op": "create_event", "content": "User adopted Rex in 2021.", "mentions": ["Rex"]}
TRIGGER = {"op": "set_trigger", "condition": "user mentions the vet", "task": "ask about Rex"}
SKILL = {"op": "register_skill", "name": "walk dog", "steps": ["leash", "walk"], "context": "am"}
RETRACT = {"op": "retract_node", "id": "node-123", "reason": "user corrected it"}


def _payload(*ops: object) -> str:
    return json.dumps({"ops": list(ops)})


def test_xml_block_is_found_stripped_and_every_op_kind_validated() -> None:
    text = f"Nice to meet Rex!\n\n<MEMORY_EXTRACT>{_payload(FACT, EVENT, TRIGGER, SKILL, RETRACT)}</MEMORY_EXTRACT>"
    result = extract_memory_ops(text)

    assert result.reply == "Nice to meet Rex!"
    assert result.strategy is ExtractionStrategy.MEMORY_EXTRACT
    assert result.reason is None and result.invalid == []
    assert [type(op) for op in result.ops] == [
        UpsertNode,
        CreateEvent,
        SetTrigger,
        RegisterSkill,
        RetractNode,
    ]
    fact = result.ops[0]
    assert isinstance(fact, UpsertNode)
    assert fact.importance == 7.0
    assert fact.relationships[0].type is Relationship.RELATES_TO
    assert [op.layer for op in result.ops] == [
        Layer.SEMANTIC,
        Layer.EPISODIC,
        Layer.PROSPECTIVE,
        Layer.PROCEDURAL,
        None,
    ]


def test_several_xml_blocks_merge_and_a_fence_inside_is_tolerated() -> None:
    text = (
        f"A<MEMORY_EXTRACT>{_payload(FACT)}</MEMORY_EXTRACT> middle "
        f"<memory_extract>\n```json\n{_payload(EVENT)}\n```\n</memory_extract>"
    )
    result = extract_memory_ops(text)
    assert result.reply == "A middle"
    assert [op.op for op in result.ops] == ["upsert_node", "create_event"]


def test_loose_graph_operations_without_closing_tag() -> None:
    text = f"Done.\n<GRAPH_OPERATIONS>\n{_payload(TRIGGER)}\nAnything else?"
    result = extract_memory_ops(text)
    assert result.strategy is ExtractionStrategy.GRAPH_OPERATIONS
    assert result.reply == "Done.\n\nAnything else?"
    assert [op.op for op in result.ops] == ["set_trigger"]


def test_loose_block_with_broken_json_is_stripped_to_the_end_with_a_reason() -> None:
    result = extract_memory_ops('Hello <GRAPH_OPERATIONS> {"ops": [ {"op": ')
    assert result.reply == "Hello"
    assert result.ops == []
    assert result.reason is not None and "not valid JSON" in result.reason


def test_trailing_json_fence_with_ops() -> None:
    text = f"Got it.\n```json\n{_payload(SKILL)}\n```\n"
    result = extract_memory_ops(text)
    assert result.strategy is ExtractionStrategy.JSON_FENCE
    assert result.reply == "Got it."
    assert isinstance(result.ops[0], RegisterSkill)


def test_a_json_code_sample_for_the_user_is_left_alone() -> None:
    text = 'Here is the config:\n```json\n{"port": 8080}\n```'
    result = extract_memory_ops(text)
    assert result.reply == text
    assert result.ops == [] and result.strategy is None
    assert result.reason == "no memory block found"


def test_last_bare_json_object_scanning_backwards() -> None:
    text = f'Earlier {{"a": 1}} then the block {_payload(FACT)} and a closing line.'
    result = extract_memory_ops(text)
    assert result.strategy is ExtractionStrategy.BARE_JSON
    assert result.reply == 'Earlier {"a": 1} then the block  and a closing line.'
    assert [op.op for op in result.ops] == ["upsert_node"]


def test_strategies_apply_in_order() -> None:
    text = f"<MEMORY_EXTRACT>{_payload(FACT)}</MEMORY_EXTRACT>\n```json\n{_payload(EVENT)}\n```"
    result = extract_memory_ops(text)
    assert result.strategy is ExtractionStrategy.MEMORY_EXTRACT
    assert [op.op for op in result.ops] == ["upsert_node"]


def test_invalid_ops_are_reported_by_index_and_skipped() -> None:
    ops = [
        FACT,
        {"op": "upsert_node"},
        {"op": "launch_rockets"},
        "not an object",
        {"label": "no op"},
        {**FACT, "importance": 42},
        {**RETRACT, "id": "bad id with spaces"},
        {**FACT, "relationships": [{"target": "x", "type": "OWNS_A_BOAT"}]},
        SKILL,
    ]
    result = extract_memory_ops(f"ok <MEMORY_EXTRACT>{json.dumps({'ops': ops})}</MEMORY_EXTRACT>")

    assert [op.op for op in result.ops] == ["upsert_node", "register_skill"]
    assert [bad.index for bad in result.invalid] == [1, 2, 3, 4, 5, 6, 7]
    reasons = {bad.index: bad.reason for bad in result.invalid}
    assert reasons[1].startswith("label: Field required")
    assert "unknown op 'launch_rockets'" in reasons[2]
    assert reasons[3] == "expected an object, got str"
    assert reasons[4] == "missing 'op'"
    assert "importance" in reasons[5]
    assert "id" in reasons[6]
    assert "unknown relationship" in reasons[7]
    assert result.reason is None


def test_all_invalid_gives_a_reason() -> None:
    result = extract_memory_ops('<MEMORY_EXTRACT>{"ops": [{"op": "nope"}]}</MEMORY_EXTRACT>')
    assert result.ops == []
    assert result.invalid == [InvalidOp(0, result.invalid[0].reason)]
    assert result.reason == "all 1 ops are invalid"


def test_payload_shapes_list_and_single_op() -> None:
    as_list = extract_memory_ops(f"<MEMORY_EXTRACT>{json.dumps([FACT, EVENT])}</MEMORY_EXTRACT>")
    single = extract_memory_ops(f"<MEMORY_EXTRACT>{json.dumps(EVENT)}</MEMORY_EXTRACT>")
    empty = extract_memory_ops('<MEMORY_EXTRACT>{"ops": []}</MEMORY_EXTRACT>')
    wrong = extract_memory_ops('<MEMORY_EXTRACT>{"facts": []}</MEMORY_EXTRACT>')

    assert len(as_list.ops) == 2
    assert len(single.ops) == 1
    assert empty.ops == [] and empty.reason == "the block holds no ops"
    assert wrong.reason == "memory_extract payload has no 'ops' list"


def test_too_many_ops_are_capped() -> None:
    ops = [{**EVENT, "content": f"event {i}"} for i in range(8)]
    result = extract_memory_ops(f"<MEMORY_EXTRACT>{_payload(*ops)}</MEMORY_EXTRACT>", max_ops=5)
    assert len(result.ops) == 5
    assert result.invalid == [InvalidOp(5, "3 ops beyond the limit of 5 ignored")]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain reply, no block",
        "<MEMORY_EXTRACT>not json</MEMORY_EXTRACT>",
        "<MEMORY_EXTRACT>" + "[" * 50_000 + "</MEMORY_EXTRACT>",
        '<MEMORY_EXTRACT>{"ops": [' + "1" * 5000 + "]}</MEMORY_EXTRACT>",
        "{" * 10_000,
        '{"ops": "not a list"}',
    ],
)
def test_malformed_input_gives_no_ops_and_a_reason(text: str) -> None:
    result = extract_memory_ops(text)
    assert result.ops == []
    assert result.reason


def test_non_text_input_does_not_raise() -> None:
    result = extract_memory_ops(None)  # type: ignore[arg-type]
    assert result.ops == [] and result.reason == "reply is not text"
