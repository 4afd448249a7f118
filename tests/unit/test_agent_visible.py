"""The streaming filter keeps the memory block out of streamed text, however it is chunked."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippograph.agent.ops_block import extract_memory_ops
from hippograph.agent.visible import VisibleTextFilter

pytestmark = pytest.mark.unit

OPS = '{"ops": [{"op": "upsert_node", "label": "dog", "content": "Rex"}]}'
BLOCK = f"<MEMORY_EXTRACT>{OPS}</MEMORY_EXTRACT>"
FENCE = '```json\n{"ops": [{"op": "upsert_node", "label": "dog", "content": "Rex"}]}\n```'
REPLIES = [
    "Your dog is Rex.\n" + BLOCK,
    "Your dog is Rex.\n\n" + BLOCK + "\n",
    "  Hello <b>there</b>, a < b and `code`.",
    "Before " + BLOCK + " after.",
    "Your dog is Rex.\n<memory_extract>" + BLOCK[16:-17] + "</memory_extract>",
    "Your dog is Rex.\n" + FENCE,
    'Code:\n```json\n{"a": 1}\n```\nDone.',
    "Unclosed <GRAPH_OPERATIONS>" + '{"ops": []}',
    "Ends with a partial <MEMORY_EXT",
]


def streamed(text: str, cuts: list[int]) -> str:
    f = VisibleTextFilter()
    out, start = [], 0
    for cut in [*sorted(set(cuts)), len(text)]:
        if cut <= start:
            continue
        out.append(f.feed(text[start:cut]))
        start = cut
    out.append(f.flush())
    return "".join(out)


@pytest.mark.parametrize("reply", REPLIES)
def test_whole_and_char_by_char_agree(reply: str) -> None:
    assert streamed(reply, []) == streamed(reply, list(range(len(reply))))


@pytest.mark.parametrize(
    ("reply", "visible"),
    [
        (REPLIES[0], "Your dog is Rex."),
        (REPLIES[1], "Your dog is Rex."),
        (REPLIES[2], "Hello <b>there</b>, a < b and `code`."),
        (REPLIES[3], "Before  after."),
        (REPLIES[4], "Your dog is Rex."),
        (REPLIES[5], "Your dog is Rex."),
        (REPLIES[6], 'Code:\n```json\n{"a": 1}\n```\nDone.'),
        (REPLIES[7], "Unclosed"),
        (REPLIES[8], "Ends with a partial <MEMORY_EXT"),
    ],
)
def test_visible_text(reply: str, visible: str) -> None:
    assert streamed(reply, list(range(0, len(reply), 5))) == visible


@pytest.mark.parametrize("reply", [REPLIES[0], REPLIES[1], REPLIES[2], REPLIES[4], REPLIES[5]])
def test_streamed_text_matches_the_final_reply(reply: str) -> None:
    assert streamed(reply, list(range(0, len(reply), 3))) == extract_memory_ops(reply).reply.strip()


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=30),
)
def test_the_block_never_leaks_whatever_the_chunks(prefix: str, cuts: list[int]) -> None:
    reply = prefix + "\n" + BLOCK
    out = streamed(reply, cuts)
    assert "MEMORY_EXTRACT" not in out and '"ops"' not in out
    assert out == streamed(reply, [])
