"""Time expressions in a query → a time window, so recall can prefer memories of that time;
and whether a query asks about the recent at all (recency's weight depends on it).

Understands: years ("in 2023"), months with or without a year ("in May 2023", "last May"),
ISO dates, "yesterday", "today", "last/this week|month|year", "N days|weeks|months|years ago".
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
FULL_MONTHS = frozenset(MONTHS)
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_AGO = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b")
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_YEAR = re.compile(r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?\s*,?\s*(\d{4})?\b")
_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_RELATIVE = re.compile(r"\b(yesterday|today|(?:last|this|past)\s+(?:week|month|year))\b")
_RECENT = re.compile(
    r"\b(recent|recently|lately|latest|newest|current|currently|nowadays|these\s+days|now|still|"
    r"anymore|last\s+time)\b"
)


def _ts(dt: datetime) -> float:
    return dt.replace(tzinfo=UTC).timestamp() if dt.tzinfo is None else dt.timestamp()


def time_window(query: str, now: float) -> tuple[float, float] | None:
    """The [start, end) epoch-seconds window the query talks about, or None."""
    found = time_expression(query, now)
    return found[1] if found else None


def time_expression(text: str, now: float) -> tuple[str, tuple[float, float]] | None:
    """The first time expression of ``text`` (lowercased, as it matched) and the [start, end)
    epoch-seconds window it names, relative ones resolved against ``now``; None without one."""
    q = text.lower()
    today = datetime.fromtimestamp(now, tz=UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if m := _ISO.search(q):
        try:
            day = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
            return m[0], (_ts(day), _ts(day + timedelta(days=1)))
        except ValueError:
            pass
    if m := _AGO.search(q):
        n = int(m[1]) if m[1].isdigit() else _WORDS[m[1]]
        span = _UNITS[m[2]]
        center = today - timedelta(days=n * span)
        return m[0], (_ts(center - timedelta(days=span)), _ts(center + timedelta(days=span)))
    if m := _RELATIVE.search(q):
        word = m[1]
        if word == "yesterday":
            return m[0], (_ts(today - timedelta(days=1)), _ts(today))
        if word == "today":
            return m[0], (_ts(today), _ts(today + timedelta(days=1)))
        span = _UNITS[word.split()[-1]]
        end = today + timedelta(days=1) if word.startswith(("this", "past")) else today
        return m[0], (_ts(end - timedelta(days=span + (0 if word.startswith("this") else span))), _ts(end))
    for m in _MONTH_YEAR.finditer(q):
        name, year_text = m[1], m[2]
        # A bare abbreviation or "may" is too often an ordinary word: only with a year.
        if not year_text and (name == "may" or name not in FULL_MONTHS):
            continue
        month = MONTHS[name]
        year = int(year_text) if year_text else (today.year if month <= today.month else today.year - 1)
        start = datetime(year, month, 1, tzinfo=UTC)
        end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
        return m[0], (_ts(start), _ts(end))
    if m := _YEAR.search(q):
        year = int(m[1])
        return m[0], (_ts(datetime(year, 1, 1, tzinfo=UTC)), _ts(datetime(year + 1, 1, 1, tzinfo=UTC)))
    return None


def asks_about_recent(query: str) -> bool:
    """Whether the query asks about the present or the latest: "recently", "lately",
    "latest", "now", "currently", "still", "these days", "last time", or a time no longer
    ago than recency's scale of days ("yesterday", "today", "this week", "3 days ago").
    Dates, months, years and "last year" name a time (the time window), not recency."""
    q = query.lower()
    if _RECENT.search(q):
        return True
    near = [m[1] for m in _RELATIVE.finditer(q)] + [m[2] for m in _AGO.finditer(q)]
    return any(w in ("yesterday", "today") or w.endswith(("day", "week")) for w in near)
