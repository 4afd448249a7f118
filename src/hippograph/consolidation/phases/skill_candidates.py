"""Phase 12's candidates: the recurring actions of one scope, and how near duplicates among
them become one — pure logic; the phase itself is ``learning.procedural_promotion``."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from hippograph.consolidation.hooks import first_and_last_sentence
from hippograph.store.transaction import Row

MAX_STEPS = 5
STEP_CHARS = 300


class ActionPattern(Row):
    """What ``get_action_patterns`` answers: one action recurring in a scope's events."""

    scope_key: str
    action: str
    occurrences: int
    evidence_ids: list[str]
    vectors: list[list[float]] | None = None
    examples: list[Any]
    example_properties: list[Any] | None = None
    first_at: Any = None
    last_at: Any = None


@dataclass
class Candidate:
    """A recurring action of one scope, on its way to becoming (or joining) a draft skill."""

    scope_key: str
    action: str
    occurrences: int
    evidence_ids: list[str]
    examples: list[str]
    calls: list[str]
    """The tool calls of the latest action event (``tool(arg, …)``), when the events are actions."""
    first_at: object
    last_at: object
    vector: list[float] | None

    @classmethod
    def of(cls, row: ActionPattern) -> Candidate:
        return cls(
            row.scope_key, row.action, row.occurrences, list(row.evidence_ids), [str(t) for t in row.examples],
            _calls(row.example_properties or []), row.first_at, row.last_at, _mean(row.vectors or []),
        )  # fmt: skip

    def sees(self, other: Candidate) -> bool:
        """True when ``other``'s scope is this one's or an ancestor of it."""
        return other.scope_key == self.scope_key or self.scope_key.startswith(other.scope_key + "/")

    def absorb(self, other: Candidate) -> None:
        self.occurrences += other.occurrences
        self.evidence_ids = list(dict.fromkeys([*self.evidence_ids, *other.evidence_ids]))
        self.examples = [*self.examples, *other.examples]
        self.calls = self.calls or other.calls

    def steps(self, earlier: list[JsonValue] | None = None) -> list[JsonValue]:
        found = self.calls or [first_and_last_sentence(t, STEP_CHARS) for t in self.examples]
        lines = dict.fromkeys([*(str(x) for x in earlier or []), *found])
        kept = [line for line in lines if line][:MAX_STEPS]
        return list[JsonValue](kept)


def _calls(properties: list[object]) -> list[str]:
    """The ``steps`` of the first (latest) example that has them (action events do)."""
    for raw in properties:
        props = json.loads(raw) if isinstance(raw, str) else {}
        steps = props.get("steps") if isinstance(props, dict) else None
        if isinstance(steps, list) and steps:
            return [str(s)[:STEP_CHARS] for s in steps]
    return []


def _mean(vectors: list[list[float]]) -> list[float] | None:
    """The unit mean of the events' embeddings (None without any)."""
    sizes = {len(v) for v in vectors}
    if len(sizes) != 1:
        return None
    mean = [sum(xs) / len(vectors) for xs in zip(*vectors, strict=True)]
    norm = math.sqrt(sum(x * x for x in mean))
    return [x / norm for x in mean] if norm > 0 else None


def _cosine(a: list[float] | None, b: list[float] | None) -> float:
    if a is None or b is None or len(a) != len(b):
        return -1.0
    return sum(x * y for x, y in zip(a, b, strict=True))


def dedup(candidates: list[Candidate], threshold: float) -> tuple[list[Candidate], int]:
    """Candidates that are near duplicates of one visible from their scope become one: two of
    one scope merge; a deeper scope's is covered by its ancestor's (the shallower wins);
    siblings never meet. Returns the kept candidates and how many were covered."""
    kept: list[Candidate] = []
    covered = 0
    for cand in sorted(candidates, key=lambda c: (c.scope_key.count("/"), -c.occurrences, c.action)):
        twin = next((k for k in kept if cand.sees(k) and _cosine(k.vector, cand.vector) >= threshold), None)
        if twin is None:
            kept.append(cand)
        elif twin.scope_key == cand.scope_key:
            twin.absorb(cand)
        else:
            covered += 1
    return kept, covered
