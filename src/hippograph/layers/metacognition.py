"""The metacognitive gate (opt-in): a skill the model registers in real time (a
``register_skill`` op) is checked against the scope's active core preferences before it is
stored.

A core preference is a semantic memory labelled ``PREFERENCE:<name>`` visible from the scope
(its own or an ancestor's), not retracted, not superseded, not past ``valid_until``, and not
switched off (``properties.active`` false). What it rules out is ``properties.avoid`` (a list
of phrases) and, read from its text, what follows "never", "do not", "don't", "must not" or
"no" up to the end of the clause. A skill contradicts a preference when every word of one of
those phrases appears in the skill's name, steps or context (content words compared by
Porter stem, so "restarts production" matches "restart the production cluster").

Modes (:class:`GateMode`): ``off`` (the default) stores every skill;
``flag`` stores a contradicting skill as a draft — never auto-approved — with the reason in its
``metacognition`` property; ``refuse`` does not store it. Either way the op's result carries
the reason and an audit entry (``skill.flag`` on the skill, ``skill.refuse`` on the preference
it contradicts; actor ``metacognition``) records it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from hippograph.cues import keywords
from hippograph.layers.base import MemoryServices
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope

__all__ = ["PREFERENCE_PREFIX", "GateMode", "GateVerdict", "MetacognitiveGate", "avoided_phrases"]

PREFERENCE_PREFIX = "PREFERENCE:"
MAX_PREFERENCES = 100
_NEGATION = re.compile(r"\b(?:never|don't|do not|must not|mustn't|no)\s+([^.;,!?\n]+)", re.IGNORECASE)


class GateMode(StrEnum):
    """What the gate does with a skill that contradicts a core preference."""

    OFF = "off"
    FLAG = "flag"
    REFUSE = "refuse"


@dataclass(frozen=True)
class GateVerdict:
    """The gate's finding on one skill."""

    contradicts: bool
    reason: str = ""
    preference_ids: list[str] = field(default_factory=list)


def avoided_phrases(preference: MemoryNode) -> list[str]:
    """What a preference rules out: its ``avoid`` list, then the negated clauses of its text."""
    given = preference.properties.get("avoid")
    phrases = [str(p) for p in given if isinstance(p, str)] if isinstance(given, list) else []
    text = f"{preference.label.removeprefix(PREFERENCE_PREFIX)}. {preference.content}"
    phrases.extend(m.group(1).strip() for m in _NEGATION.finditer(text))
    return [p for p in dict.fromkeys(phrases) if _stems(p)]


def _stems(text: str) -> set[str]:
    """Porter stems of the content words (as the keyword cues have them)."""
    return set(keywords(text))


class MetacognitiveGate:
    """Checks a skill against the active core preferences visible from a scope.

    Args:
        services: The memory's services (the store and the clock).
    """

    def __init__(self, services: MemoryServices) -> None:
        self._services = services

    async def preferences(self, scope: Scope) -> list[MemoryNode]:
        """The scope's active core preferences (its own and its ancestors')."""
        nodes = await self._services.store.query_nodes(
            scope, {"layers": [Layer.SEMANTIC], "label_prefix": PREFERENCE_PREFIX}, limit=MAX_PREFERENCES
        )
        now = self._services.clock()
        return [
            n
            for n in nodes
            if n.superseded_by is None
            and (n.valid_until is None or n.valid_until > now)
            and n.properties.get("active") is not False
        ]

    async def check(self, scope: Scope, name: str, steps: Sequence[str], context: str = "") -> GateVerdict:
        """Whether the skill contradicts one of the scope's active core preferences, and why."""
        words = _stems(" ".join([name, *steps, context]))
        reasons: list[str] = []
        ids: list[str] = []
        for pref in await self.preferences(scope):
            hit = next((p for p in avoided_phrases(pref) if _stems(p) <= words), None)
            if hit is not None:
                reasons.append(f"{pref.label} rules out {hit!r}")
                ids.append(pref.id)
        if not ids:
            return GateVerdict(False)
        return GateVerdict(True, "contradicts core preference: " + "; ".join(reasons), ids)
