"""When a prospective trigger fires, and which pending triggers a prompt shows first.

A trigger fires at hydration when

- it is **due**: its ``due_at`` (epoch seconds, "remind me on the 3rd") has passed, or
- its **condition** holds, by words or by meaning:

  - by words: the turn's message names one of the trigger's terms — the ``about`` terms it
    was given (a topic, a keyword, a person), else the names and content words of its
    condition. A term of several words holds when all its words occur (Porter stems, as
    recall's cues make them); a person when the name occurs as a word.
  - by meaning (condition triggers, not time ones): the cosine similarity of the message's
    embedding to the condition's (:func:`condition_topic`, embedded by the memory's
    embedder) is at least a threshold
    the caller states (the agent's ``triggers.meaning_threshold``). The layer computes the
    similarities; here they are given.

A trigger snoozed until a later time does not fire before then, and a resolved one never.
A due trigger already shown as fired in this conversation (``shown``: trigger id → its
:func:`firing_key` then) does not fire again for being due: only when the message names its
condition or its time changed (a new due time, a snooze that ended). It is then ranked with
the waiting ones, marked ``reminded``.

Pending triggers are ranked, never cut arbitrarily: fired before waiting, due before
condition (the longest overdue first), then by how many of their terms the message names
(plus the similarity of a match by meaning), then importance, then the soonest due, then the
oldest. Pure functions: the layer reads the nodes and computes the similarities, the agent
renders the ranking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from hippograph.cues import keywords, query_names
from hippograph.models import MemoryNode

__all__ = ["FireReason", "RankedTrigger", "condition_topic", "firing_key", "rank_triggers", "trigger_terms"]

# Stems of the words a condition is phrased with rather than about ("when the user mentions …").
_PHRASING = frozenset(
    keywords(
        "user users mention mentions mentioned talk talks talking about asks asked brings bring "
        "comes come next time again someone says said discuss discusses remind reminder whenever "
        "tell tells topic subject conversation message"
    )
)


class FireReason(StrEnum):
    DUE = "due"
    CONDITION = "condition"


@dataclass(frozen=True)
class RankedTrigger:
    """A pending trigger as the turn sees it.

    Attributes:
        node: The trigger.
        fired: Why it fires this turn (None: it waits).
        matched: The terms of its condition the message named.
        snoozed_until: When a snooze ends (None: not snoozed now).
        similarity: The message's similarity to the condition's topic (None: not compared).
        by_meaning: The condition holds by meaning (the similarity reached the threshold).
        reminded: It fired earlier in this session and does not fire anew this turn
            (then ``fired`` is None; see :mod:`hippograph.agent.reminders`).
    """

    node: MemoryNode
    fired: FireReason | None
    matched: tuple[str, ...]
    snoozed_until: float | None
    similarity: float | None = None
    by_meaning: bool = False
    reminded: bool = False

    @property
    def due_at(self) -> float | None:
        return _number(self.node.properties.get("due_at"))


def trigger_terms(node: MemoryNode) -> list[str]:
    """The terms whose mention makes a trigger's condition hold: its ``about`` list, else the
    names and the content words of its condition (phrasing words left out)."""
    about = node.properties.get("about")
    if isinstance(about, list) and any(isinstance(a, str) and a.strip() for a in about):
        return [a.strip() for a in about if isinstance(a, str) and a.strip()]
    condition = node.properties.get("condition")
    if not isinstance(condition, str):
        return []
    found = query_names(condition)
    named = {stem for name in found for stem in keywords(name)}
    found += [stem for stem in keywords(condition) if stem not in _PHRASING and stem not in named]
    return found


def condition_topic(node: MemoryNode) -> str:
    """What a condition trigger is about, as text to embed: its ``about`` terms, else its
    condition as written (a sentence embeds closer to a message's meaning than its bare
    words do); "" for a time trigger."""
    if _number(node.properties.get("due_at")) is not None:
        return ""
    about = node.properties.get("about")
    if isinstance(about, list) and any(isinstance(a, str) and a.strip() for a in about):
        return ", ".join(a.strip() for a in about if isinstance(a, str) and a.strip())
    condition = node.properties.get("condition")
    return condition.strip() if isinstance(condition, str) else ""


def rank_triggers(
    pending: Sequence[MemoryNode],
    message: str,
    now: float,
    *,
    similarity: Mapping[str, float] | None = None,
    threshold: float | None = None,
    shown: Mapping[str, str] | None = None,
) -> list[RankedTrigger]:
    """Every pending trigger, fired ones first, in the order of the module docstring.
    ``similarity``: trigger id → the message's similarity to its condition's topic; a
    condition holds by meaning when it is at least ``threshold`` (None: by words only).
    ``shown``: the due triggers this conversation showed as fired (id → firing key)."""
    said = set(keywords(message))
    words = {w.casefold() for w in message.split()} | {w.casefold().strip(".,!?;:'\"()") for w in message.split()}
    scores = similarity or {}
    ranked = [
        _evaluate(node, said, words, now, scores.get(node.id), threshold, shown or {})
        for node in pending
        if not node.properties.get("resolved")
    ]

    def order(r: RankedTrigger) -> tuple[float, float, float, float, float, float, str]:
        due = r.due_at
        fired_rank = {FireReason.DUE: 0, FireReason.CONDITION: 1, None: 2}[r.fired]
        overdue = due - now if r.fired is FireReason.DUE and due is not None else 0.0
        soonest = due if due is not None else float("inf")
        strength = len(r.matched) + ((r.similarity or 0.0) if r.by_meaning else 0.0)
        return (fired_rank, overdue, -strength, -r.node.importance, soonest, r.node.created_at, r.node.id)

    return sorted(ranked, key=order)


def firing_key(node: MemoryNode) -> str:
    """What makes a due trigger's firing the same one: its due time and its last snooze."""
    return f"due:{_number(node.properties.get('due_at'))}:{_number(node.properties.get('snoozed_until'))}"


def _evaluate(
    node: MemoryNode,
    said: set[str],
    words: set[str],
    now: float,
    similarity: float | None,
    threshold: float | None,
    shown: Mapping[str, str],
) -> RankedTrigger:
    snooze = _number(node.properties.get("snoozed_until"))
    snoozed = snooze if snooze is not None and snooze > now else None
    matched = tuple(term for term in trigger_terms(node) if _holds(term, said, words))
    by_meaning = threshold is not None and similarity is not None and similarity >= threshold
    due = _number(node.properties.get("due_at"))
    fired: FireReason | None = None
    if snoozed is None:
        if due is not None and due <= now:
            fired = FireReason.DUE
        elif due is None and (matched or by_meaning):
            fired = FireReason.CONDITION
    again = fired is FireReason.DUE and shown.get(node.id) == firing_key(node) and not (matched or by_meaning)
    if again:
        fired = None
    return RankedTrigger(node, fired, matched, snoozed, similarity, by_meaning, reminded=again)


def _holds(term: str, said: set[str], words: set[str]) -> bool:
    stems = keywords(term)
    if stems:
        return all(stem in said for stem in stems)
    return term.casefold() in words  # short names ("Al", "Bo") have no keyword stem


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
