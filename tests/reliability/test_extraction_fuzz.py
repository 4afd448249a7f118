"""Property tests: extraction never raises, and what it returns is consistent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippograph.agent.ops_block import extract_memory_ops
from hippograph.ops import OP_NAMES

pytestmark = pytest.mark.reliability

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_MARKERS = st.sampled_from(
    [
        "<MEMORY_EXTRACT>",
        "</MEMORY_EXTRACT>",
        "<GRAPH_OPERATIONS>",
        "</GRAPH_OPERATIONS>",
        "```json\n",
        "```",
        '{"ops": [',
        '{"op": "upsert_node", "label": "x"}',
        "]}",
        "{",
        "}",
        "[",
        "]",
        '"',
        ",",
        ":",
        "\\",
    ]
)
_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_OP_LIKE = st.fixed_dictionaries(
    {"op": st.sampled_from([*OP_NAMES, "bogus"])},
    optional={
        "label": st.text(max_size=30),
        "content": st.text(max_size=30),
        "importance": st.one_of(st.integers(-5, 20), st.floats(allow_nan=True)),
        "steps": st.lists(st.text(max_size=10), max_size=3),
        "condition": st.text(max_size=10),
        "task": st.text(max_size=10),
        "name": st.text(max_size=10),
        "id": st.text(max_size=12),
        "reason": st.text(max_size=10),
        "properties": st.dictionaries(st.text(max_size=5), _JSON, max_size=3),
        "relationships": st.lists(_JSON, max_size=2),
    },
)


def _check(text: str) -> None:
    result = extract_memory_ops(text)
    assert isinstance(result.reply, str)
    assert len(result.reply) <= len(text)
    if not result.ops:
        assert result.reason
    indexes = [bad.index for bad in result.invalid]
    assert indexes == sorted(set(indexes))


@FUZZ
@given(st.text())
def test_any_text(text: str) -> None:
    _check(text)


@FUZZ
@given(st.lists(st.one_of(_MARKERS, st.text(max_size=15)), max_size=25).map("".join))
def test_marker_soup(text: str) -> None:
    _check(text)


@FUZZ
@given(
    st.text(max_size=40),
    st.lists(st.one_of(_OP_LIKE, _JSON), max_size=6),
    st.sampled_from(["xml", "loose", "fence", "bare"]),
    st.text(max_size=40),
)
def test_wrapped_payloads(prefix: str, ops: list[Any], wrapper: str, suffix: str) -> None:
    payload = json.dumps({"ops": ops})
    body = {
        "xml": f"<MEMORY_EXTRACT>{payload}</MEMORY_EXTRACT>",
        "loose": f"<GRAPH_OPERATIONS>{payload}",
        "fence": f"\n```json\n{payload}\n```",
        "bare": payload,
    }[wrapper]
    text = f"{prefix}{body}{suffix}"
    _check(text)
    result = extract_memory_ops(text)
    if result.strategy is not None and result.reason is None:
        assert len(result.ops) + len(result.invalid) == len(ops)


@FUZZ
@given(st.text(max_size=60), _OP_LIKE)
def test_a_valid_block_is_never_user_visible(prefix: str, op: dict[str, Any]) -> None:
    text = f"{prefix}<MEMORY_EXTRACT>{json.dumps({'ops': [op]})}</MEMORY_EXTRACT>"
    result = extract_memory_ops(text)
    assert "<MEMORY_EXTRACT>" not in result.reply or "<MEMORY_EXTRACT>" in prefix
    assert len(result.ops) + len(result.invalid) == 1
