"""Kept facts against the conversation they were kept from, and against their own history.

An agent keeps a fact from a conversation ("Sam moved to Porto" → ``sam.city``: "Sam lives in
Porto") and keeps it current: a later version supersedes it. When a recall finds both the fact
and the turns it restates, the fact is the better answer — it is what was kept of them, and it
is current where a turn may be long outdated. So, after scoring:

* a current fact that a channel found ranks just above every conversation turn it restates
  that the same recall found (a turn restates a fact when they share at least ``MIN_SHARED``
  content words), and names them in :attr:`~hippograph.retrieval.types.RecallItem.above`
  (``RecallConfig.facts_above_turns``);
* a superseded version ranks just below the current version of its fact when both are found,
  whatever else lifted it, and names it in ``below`` (``RecallConfig.superseded_below_current``).

The other way round — an answer the agent drew from memory ranks below its sources — is
:mod:`~hippograph.retrieval.derived`.
"""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.cues import keywords
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.scoring import is_current_fact
from hippograph.retrieval.types import Channel, RecallItem

MIN_SHARED = 2
"""Content words a turn shares with a fact to count as restating it."""
_MARGIN = 1e-3
_PASSES = 4
_FOUND = frozenset({Channel.VECTOR, Channel.FULLTEXT})


def is_turn(node: MemoryNode) -> bool:
    """A conversation turn: an ingested utterance or an exchange the agent recorded."""
    return node.layer is Layer.EPISODIC and node.properties.get("kind") == "turn"


def restates(fact_words: set[str], turn: MemoryNode) -> bool:
    """Whether ``turn`` shares at least ``MIN_SHARED`` of the fact's content words."""
    return len(fact_words.intersection(keywords(turn.content))) >= MIN_SHARED


def _above(score: float) -> float:
    return score + max(abs(score) * _MARGIN, 1e-9)


def _below(score: float) -> float:
    return score - max(abs(score) * _MARGIN, 1e-9)


def rank_facts(items: Sequence[RecallItem], config: RecallConfig, now: float) -> list[RecallItem]:
    """``items`` (best first) with current facts above the turns they restate and superseded
    versions below their current one (as configured); the same list, reordered, when any moved."""
    score = {i.node.id: i.score for i in items}
    above: dict[str, list[str]] = {}
    below: dict[str, list[str]] = {}
    if config.facts_above_turns:
        turns = [i.node for i in items if is_turn(i.node)]
        for item in items:
            node = item.node
            if not turns or not _FOUND.intersection(item.channels) or not is_current_fact(node, now):
                continue
            words = set(keywords(f"{node.label} {node.content}"))
            restated = [t for t in turns if restates(words, t) and item.score >= config.fact_turn_ratio * score[t.id]]
            if restated:
                above[node.id] = [t.id for t in restated]
                # facts lifted above the same turn keep their own order
                lifted = _above(max(score[t.id] for t in restated)) + item.score * _MARGIN**2
                score[node.id] = max(score[node.id], lifted)
    if config.superseded_below_current:
        current = {i.node.key: i.node.id for i in items if i.node.key and is_current_fact(i.node, now)}
        older = [i.node for i in items if i.node.layer is Layer.SEMANTIC and i.node.superseded_by]
        for _ in range(_PASSES):  # a chain of versions without a key settles in a few passes
            moved = False
            for node in older:
                newer = (current.get(node.key) if node.key else None) or node.superseded_by
                if newer not in score or score[node.id] < score[newer]:
                    continue
                below[node.id] = [newer]
                score[node.id] = _below(score[newer])
                moved = True
            if not moved:
                break
    if not above and not below:
        return list(items)
    out = [
        i.model_copy(
            update={
                "score": score[i.node.id],
                **({"above": above[i.node.id]} if i.node.id in above else {}),
                **({"below": below[i.node.id]} if i.node.id in below else {}),
            }
        )
        for i in items
    ]
    out.sort(key=lambda i: (-i.score, i.node.id))
    return out
