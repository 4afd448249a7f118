"""The facts check: does recall put the current kept fact first?

A memory shaped like the product's: for each of five users (one scope each), sessions of
small talk between the user and the assistant, both speakers' turns ingested as episodic
memories, and after each session the facts an agent would have kept, remembered with a key
(``memory.remember(scope, label, content, key=...)``) at the session's time — so a later
version of a key supersedes the earlier one, and the same content remembered again is a
confirmation. The questions are worded unlike the stored text; each names the key whose
current version answers it.

For every question the check records where the current version ranks (first, top 5) and
whether a superseded version of the same key ranks above it. Recall runs with the default
config except ``track_access=False`` (a question's recall would otherwise raise the use
counts of what it returned, and the next question's ranking would depend on the order they
are asked in). Consolidation does not run: the library ``Memory`` has no nap cadence, only the
agent naps.

The users differ in shape: keys kept once and never touched, keys confirmed by the same content
later, chains of two and three versions (a home that moves twice, a job that changes three
times), people reached through another ("Diego's mum", "Grace's son"), and a last session that
keeps nothing. Questions ask in other words than the facts ("boss" for manager, "leg" for knee),
some about the present ("now", "these days", "still").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib.resources import files
from typing import Any

from hippograph.memory import ConversationTurn, Memory
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope

DAY = 86_400.0
TOP_K = 10
SESSION_MINUTES = 20
"""Turns are a minute apart; the session's facts are kept this long after its start."""


@dataclass(frozen=True)
class Fact:
    key: str
    label: str
    content: str


@dataclass(frozen=True)
class Session:
    id: str
    at: float
    turns: list[ConversationTurn]
    facts: list[Fact]


@dataclass(frozen=True)
class Question:
    question: str
    key: str


@dataclass(frozen=True)
class User:
    id: str
    sessions: list[Session]
    questions: list[Question]


@dataclass(frozen=True)
class Story:
    now: float
    users: list[User]


@dataclass(frozen=True)
class Outcome:
    """One question's result: the current version's rank (1-based; None when not in the top
    ``TOP_K``), whether a superseded version ranked above it, and what ranked first."""

    user: str
    question: str
    key: str
    rank: int | None
    superseded_above: bool
    first: str


@dataclass
class Kept:
    """What the story's remembers returned: the current version of each key and every
    earlier one."""

    current: dict[str, str] = field(default_factory=dict)
    superseded: dict[str, set[str]] = field(default_factory=dict)


def load_story() -> Story:
    """The check's story (``story.json`` beside this module), dated from its fixed ``now``."""
    raw = json.loads(files("benchmarks.facts_check").joinpath("story.json").read_text("utf-8"))
    now = datetime.fromisoformat(raw["now"]).timestamp()
    return Story(now=now, users=[_user(u, now) for u in raw["users"]])


def _user(raw: dict[str, Any], now: float) -> User:
    sessions = []
    for s in raw["sessions"]:
        at = now - s["days_ago"] * DAY
        turns = [
            ConversationTurn(
                turn_id=f"{s['id']}:{i}", session_id=s["id"], speaker=who, text=text, occurred_at=at + 60 * i
            )
            for i, (who, text) in enumerate(s["turns"])
        ]
        sessions.append(Session(s["id"], at, turns, [Fact(**f) for f in s["facts"]]))
    return User(raw["id"], sessions, [Question(**q) for q in raw["questions"]])


class StoryClock:
    """The memory's clock, set to each session's time while it is stored."""

    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


async def store_user(memory: Memory, clock: StoryClock, scope: Scope, user: User) -> Kept:
    """Ingest every session's turns, then remember its facts at the session's end."""
    kept = Kept()
    for session in user.sessions:
        clock.at = session.at
        await memory.ingest(scope, session.turns)
        clock.at = session.at + SESSION_MINUTES * 60
        for fact in session.facts:
            node = await memory.remember(scope, fact.label, fact.content, key=fact.key)
            before = kept.current.get(fact.key)
            if before is not None and before != node.id:
                kept.superseded.setdefault(fact.key, set()).add(before)
            kept.current[fact.key] = node.id
    return kept


def describe(item: RecallItem) -> str:
    """A ranked memory in a few words: its layer, its speaker when a turn, its text."""
    node = item.node
    who = node.properties.get("speaker")
    text = node.content if not node.label or node.layer.value == "episodic" else f"{node.label}: {node.content}"
    return f"{node.layer.value}{f' ({who})' if who else ''}: {text[:90]}"


def outcome(user: str, question: Question, items: Sequence[RecallItem], kept: Kept) -> Outcome:
    ids = [i.node.id for i in items]
    current = kept.current[question.key]
    rank = ids.index(current) + 1 if current in ids else None
    old = kept.superseded.get(question.key, set())
    above = ids[: (rank - 1) if rank else len(ids)]
    return Outcome(
        user=user,
        question=question.question,
        key=question.key,
        rank=rank,
        superseded_above=any(i in old for i in above),
        first=describe(items[0]) if items else "",
    )


RULES_OFF: dict[str, object] = {
    "fact_evidence": False,
    "importance_weight": 0.0,
    "question_turn_factor": 1.0,
    "facts_above_turns": False,
    "superseded_below_current": False,
    "current_facts_timeless": False,
}
ABLATION: dict[str, dict[str, object]] = {
    "all rules off": RULES_OFF,
    "only fact_evidence": {**RULES_OFF, "fact_evidence": True},
    "only importance_weight": {**RULES_OFF, "importance_weight": 1.0},
    "default without fact_evidence": {"fact_evidence": False},
    "default without importance_weight": {"importance_weight": 0.0},
    "default without the question weight": {"question_turn_factor": 1.0},
    "default without facts_above_turns": {"facts_above_turns": False},
    "default without superseded_below_current": {"superseded_below_current": False},
    "default without current_facts_timeless": {"current_facts_timeless": False},
}
"""The kept-fact rules of recall's final scoring switched off, or one on, at a time."""


def check_config(**changes: object) -> RecallConfig:
    """The check's recall config: the default with the top ``TOP_K``, no access tracking."""
    return RecallConfig.model_validate({"top_k": TOP_K, "track_access": False, **changes})


async def ask(memory: Memory, scope: Scope, user: User, kept: Kept, now: float, config: RecallConfig) -> list[Outcome]:
    """Every question of ``user``, asked of its stored story in ``scope``."""
    out = []
    for q in user.questions:
        result = await memory.recall(scope, q.question, config=config, now=now)
        out.append(outcome(user.id, q, result.items, kept))
    return out


async def run_user(memory: Memory, clock: StoryClock, scope: Scope, user: User, now: float) -> list[Outcome]:
    """Store one user's story in ``scope`` and ask every question of it."""
    kept = await store_user(memory, clock, scope, user)
    return await ask(memory, scope, user, kept, now, check_config())


@dataclass(frozen=True)
class Summary:
    questions: int
    first: int
    top5: int
    superseded_above: int

    @property
    def first_share(self) -> float:
        return self.first / self.questions if self.questions else 0.0


def summarise(outcomes: Sequence[Outcome]) -> Summary:
    return Summary(
        questions=len(outcomes),
        first=sum(1 for o in outcomes if o.rank == 1),
        top5=sum(1 for o in outcomes if o.rank is not None and o.rank <= 5),
        superseded_above=sum(1 for o in outcomes if o.superseded_above),
    )


def report(outcomes: Sequence[Outcome], show: Callable[[str], None], *, misses: bool = True) -> Summary:
    """Print the summary (and each question whose current fact was not first); return it."""
    s = summarise(outcomes)
    if misses:
        for o in outcomes:
            if o.rank != 1:
                where = f"rank {o.rank}" if o.rank else f"not in the top {TOP_K}"
                flag = " [superseded above]" if o.superseded_above else ""
                show(f"{o.user}: {o.question!r} ({o.key}) → {where}{flag}; first: {o.first}")
    for user in dict.fromkeys(o.user for o in outcomes):
        u = summarise([o for o in outcomes if o.user == user])
        show(f"{user}: first {u.first} of {u.questions}, top 5 {u.top5}, superseded above {u.superseded_above}")
    show(
        f"{s.questions} questions: current fact first {s.first} ({100 * s.first_share:.1f} %), "
        f"in the top 5 {s.top5} ({100 * s.top5 / max(1, s.questions):.1f} %), "
        f"a superseded version above the current one {s.superseded_above}"
    )
    return s
