"""The capability's UTF-8 budget cut (pure): whole entries, best first, the associated
header only with an associated entry under it, never more bytes than the budget."""

from __future__ import annotations

import pytest

from hippograph.memory.utf8_budget import ASSOCIATED_HEADER, fit_utf8
from hippograph.models import Layer
from hippograph.retrieval.context import ContextEntry, MemoryContext

pytestmark = pytest.mark.unit


def _entry(id_: str, text: str, layer: Layer = Layer.SEMANTIC) -> ContextEntry:
    return ContextEntry(id=id_, layer=layer, text=text, tokens=1, explanation="")


CONTEXT = MemoryContext(
    text="",
    entries=[
        _entry("w", "[working] User: hi | Agent: hello", Layer.WORKING),
        _entry("a", "[semantic] 東京に住んでいる"),  # 3-byte characters
        _entry("b", "[semantic] Zürich"),
        _entry("c", "[episodic] 🐕 walked the dog", Layer.EPISODIC),  # associated
    ],
    tokens=4,
    budget=100,
    dropped=[],
)


def test_everything_fits_in_a_big_budget() -> None:
    text, ids, dropped = fit_utf8(CONTEXT, {"c"}, 10_000)
    assert ids == ["w", "a", "b", "c"] and dropped == []
    assert text.splitlines() == [e.text for e in CONTEXT.entries[:3]] + [ASSOCIATED_HEADER, CONTEXT.entries[3].text]


@pytest.mark.parametrize("budget", range(0, 160, 7))
def test_never_more_bytes_than_the_budget(budget: int) -> None:
    text, ids, dropped = fit_utf8(CONTEXT, {"c"}, budget)
    assert len(text.encode("utf-8")) <= budget
    assert sorted(ids + dropped) == ["a", "b", "c", "w"]
    lines = text.splitlines()
    assert (ASSOCIATED_HEADER in lines) == ("c" in ids)
    assert [line for line in lines if line != ASSOCIATED_HEADER] == [e.text for e in CONTEXT.entries if e.id in ids]


def test_a_long_entry_is_skipped_and_a_shorter_later_one_still_fits() -> None:
    working = len(CONTEXT.entries[0].text.encode("utf-8"))
    zurich = len(CONTEXT.entries[2].text.encode("utf-8"))
    text, ids, dropped = fit_utf8(CONTEXT, {"c"}, working + 1 + zurich)
    assert ids == ["w", "b"] and dropped == ["a", "c"]
    assert len(text.encode("utf-8")) == working + 1 + zurich
