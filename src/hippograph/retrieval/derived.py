"""Answers drawn from memory rank below their sources.

When an agent answers from memory, its turn is stored like any other, with the ids of the
memories it drew on in ``properties.drawn_from`` (and a ``DERIVED_FROM`` edge to each): of the
memories the model was shown, those that share content words with the reply that the user's
message lacks (:func:`drawn_on`). Such a
turn repeats its sources' words next to the question's own, so a later recall of the same
question would rank it first: memory would start citing itself. Recall therefore puts a
derived memory just below the lowest-scored of its sources that the same recall found, and
names them in :attr:`~hippograph.retrieval.types.RecallItem.below`. A derived memory whose
sources are not in the result keeps its score. Chains (an answer drawn from an earlier
answer) settle in a few passes.
"""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.cues import keywords
from hippograph.models import MemoryNode
from hippograph.retrieval.types import RecallItem

DRAWN_FROM = "drawn_from"
"""The ``properties`` key of a memory that lists the ids of the memories it was drawn from."""
MAX_DRAWN_FROM = 20
"""Most sources one memory records."""
MIN_SHARED = 2
"""Keywords a memory must share with the reply's own (those the user's message lacks) for the
reply to count as drawn from it."""
_PASSES = 4
_MARGIN = 1e-3


def sources_of(node: MemoryNode) -> list[str]:
    """The ids ``node`` was drawn from (empty for a memory not derived from others)."""
    value = node.properties.get(DRAWN_FROM)
    if not isinstance(value, list):
        return []
    return [s for s in value if isinstance(s, str) and s != node.id]


def drawn_on(user: str, reply: str, shown: Sequence[MemoryNode]) -> list[str]:
    """The ids of the ``shown`` memories ``reply`` draws on: each shares at least
    ``MIN_SHARED`` keyword stems with the reply that the user's message does not have (so a
    reply that only acknowledges what the user said draws on nothing). In ``shown``'s order."""
    own = set(keywords(reply)) - set(keywords(user))
    if len(own) < MIN_SHARED:
        return []
    return [n.id for n in shown if len(own.intersection(keywords(f"{n.label} {n.content}"))) >= MIN_SHARED]


def demote_derived(items: Sequence[RecallItem]) -> list[RecallItem]:
    """``items`` (best first) with each derived memory scored just below its sources among
    them; the same list, reordered, when any moved."""
    sources = {i.node.id: sources_of(i.node) for i in items}
    if not any(sources.values()):
        return list(items)
    score = {i.node.id: i.score for i in items}
    below: dict[str, list[str]] = {}
    for _ in range(_PASSES):
        moved = False
        for nid, drawn in sources.items():
            found = [s for s in drawn if s in score]
            if not found:
                continue
            cap = min(score[s] for s in found)
            below[nid] = found
            if score[nid] >= cap:
                score[nid] = cap - max(abs(cap) * _MARGIN, 1e-9)
                moved = True
        if not moved:
            break
    out = [
        i.model_copy(update={"score": score[i.node.id], "below": below[i.node.id]}) if i.node.id in below else i
        for i in items
    ]
    out.sort(key=lambda i: (-i.score, i.node.id))
    return out
