"""Optional model hooks and the extractive episode summary used when no model is given.

A ``model`` passed to :class:`~hippograph.consolidation.SleepConsolidator` may implement either
protocol (or both); anything else is ignored. Model failures fall back to the extractive path
(phase 10) or keep the pair unmerged (phase 13) — consolidation never fails because of a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SPACE = re.compile(r"\s+")


@runtime_checkable
class Summarizer(Protocol):
    """Writes one summary of many episode texts (phase 10)."""

    async def summarize(self, texts: Sequence[str]) -> str:
        """Return a summary of ``texts`` (oldest first)."""
        ...


@runtime_checkable
class MergeJudge(Protocol):
    """Confirms that two near-duplicate facts say the same thing (phase 13)."""

    async def same_fact(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` state one fact and may be merged."""
        ...


def first_and_last_sentence(text: str, limit: int) -> str:
    """The first sentence, plus the last one when different, cut to ``limit`` characters."""
    clean = _SPACE.sub(" ", text).strip()
    sentences = [s for s in _SENTENCE_END.split(clean) if s]
    if not sentences:
        return ""
    line = sentences[0] if len(sentences) == 1 else f"{sentences[0]} … {sentences[-1]}"
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def extractive_summary(texts: Sequence[str], times: Sequence[float | None], *, line_chars: int, max_chars: int) -> str:
    """One dated line per episode (its first and last sentence); when the lines exceed
    ``max_chars``, the earliest and latest lines are kept around a count of those left out."""
    lines = []
    for text, at in zip(texts, times, strict=True):
        body = first_and_last_sentence(text, line_chars)
        if body:
            day = datetime.fromtimestamp(at, UTC).date().isoformat() if at is not None else "?"
            lines.append(f"- {day}: {body}")
    header = f"Summary of {len(texts)} earlier episodes:"
    out = "\n".join([header, *lines])
    if len(out) <= max_chars:
        return out
    head: list[str] = []
    tail: list[str] = []
    budget = max_chars - len(header) - 40
    left, right = 0, len(lines) - 1
    while left <= right:
        take = lines[left] if len(head) <= len(tail) else lines[right]
        if len(take) + 1 > budget:
            break
        budget -= len(take) + 1
        if len(head) <= len(tail):
            head.append(take)
            left += 1
        else:
            tail.insert(0, take)
            right -= 1
    skipped = len(lines) - len(head) - len(tail)
    middle = [f"- … {skipped} more …"] if skipped else []
    return "\n".join([header, *head, *middle, *tail])[:max_chars]
