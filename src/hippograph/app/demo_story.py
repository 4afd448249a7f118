"""The demo's sample story (``demo_data/conversation.json``): eight weeks of sessions between
Sam and an assistant, dated relative to the moment it is loaded, with what an agent would
have kept from each session — facts (keyed, so a move to another city supersedes the old
one), logged events (a routine repeated three times) and plans (prospective triggers)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib.resources import files
from typing import Any

from hippograph.memory import ConversationTurn

DAY = 86_400.0
_IN_DAYS = re.compile(r"\{in_(\d+)_days\}")


@dataclass(frozen=True)
class Fact:
    key: str
    label: str
    content: str


@dataclass(frozen=True)
class Event:
    label: str
    content: str


@dataclass(frozen=True)
class Plan:
    condition: str
    task: str
    due_at: float


@dataclass(frozen=True)
class Session:
    id: str
    at: float
    turns: list[ConversationTurn]
    facts: list[Fact] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)


def load_story(now: float | None = None) -> list[Session]:
    """The sessions, oldest first, dated relative to ``now`` (default: the current time)."""
    now = time.time() if now is None else now
    data = json.loads(files("hippograph.app").joinpath("demo_data", "conversation.json").read_text("utf-8"))
    return [_session(raw, now) for raw in data["sessions"]]


def sample_turns(now: float | None = None) -> list[ConversationTurn]:
    """Every turn of the story, oldest first (one episodic memory each when ingested)."""
    return [turn for session in load_story(now) for turn in session.turns]


def _session(raw: dict[str, Any], now: float) -> Session:
    day = datetime.fromtimestamp(now - raw["days_ago"] * DAY)
    hour, minute = (int(x) for x in raw["time"].split(":"))
    at = day.replace(hour=hour, minute=minute, second=0, microsecond=0).timestamp()
    turns = [
        ConversationTurn(
            turn_id=f"{raw['id']}:{i}",
            session_id=raw["id"],
            speaker=speaker,
            text=_IN_DAYS.sub(lambda m: _date_in(now, int(m.group(1))), text),
            occurred_at=at + 60 * i,
        )
        for i, (speaker, text) in enumerate(raw["turns"])
    ]
    return Session(
        id=raw["id"],
        at=at,
        turns=turns,
        facts=[Fact(**f) for f in raw.get("facts", [])],
        events=[Event(**e) for e in raw.get("events", [])],
        plans=[Plan(p["condition"], p["task"], now + p["in_days"] * DAY) for p in raw.get("plans", [])],
    )


def _date_in(now: float, days: int) -> str:
    return (datetime.fromtimestamp(now) + timedelta(days=days)).strftime("%A %d %B").replace(" 0", " ")
