"""Time expressions in a query → a [start, end) window (hippograph.retrieval.timeparse)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hippograph.retrieval.timeparse import asks_about_recent, time_window

NOW = datetime(2024, 6, 15, 12, 30, tzinfo=UTC).timestamp()


def ts(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did we do in 2023?", ts(2023, 1, 1), ts(2024, 1, 1)),
        ("the trip in May 2023", ts(2023, 5, 1), ts(2023, 6, 1)),
        ("back in Dec 2022", ts(2022, 12, 1), ts(2023, 1, 1)),
        ("in December, 2021", ts(2021, 12, 1), ts(2022, 1, 1)),
        ("on 2023-05-08 she moved", ts(2023, 5, 8), ts(2023, 5, 9)),
        ("what happened yesterday", ts(2024, 6, 14), ts(2024, 6, 15)),
        ("anything today?", ts(2024, 6, 15), ts(2024, 6, 16)),
        ("last March", ts(2024, 3, 1), ts(2024, 4, 1)),
        ("in August", ts(2023, 8, 1), ts(2023, 9, 1)),
        ("3 days ago", ts(2024, 6, 11), ts(2024, 6, 13)),
        ("two weeks ago", ts(2024, 5, 25), ts(2024, 6, 8)),
    ],
)
def test_windows(query: str, start: float, end: float) -> None:
    assert time_window(query, NOW) == (start, end)


@pytest.mark.parametrize("query", ["last week", "this week", "past month", "last year", "a month ago"])
def test_relative_windows_end_by_tomorrow_and_cover_their_span(query: str) -> None:
    window = time_window(query, NOW)
    assert window is not None
    start, end = window
    assert start < end <= ts(2024, 6, 16)
    span_days = {"week": 7, "month": 30, "year": 365}[query.split()[-1] if "ago" not in query else "month"]
    assert end - start >= span_days * 86_400


def test_this_week_is_the_last_seven_days_and_last_week_reaches_further_back() -> None:
    this = time_window("this week", NOW)
    last = time_window("last week", NOW)
    assert this is not None and last is not None
    assert this == (ts(2024, 6, 9), ts(2024, 6, 16))
    assert last[0] < this[0] and last[1] <= this[1]


@pytest.mark.parametrize(
    "query",
    [
        "what is her favourite colour?",
        "may I ask something",
        "in 2077",
        "the 1800s",
        "",
        "jan",
        "mar is a word",
    ],
)
def test_no_time_no_window(query: str) -> None:
    assert time_window(query, NOW) is None


def test_an_impossible_iso_date_falls_back_to_its_year() -> None:
    assert time_window("on 2023-02-30", NOW) == (ts(2023, 1, 1), ts(2024, 1, 1))


def test_the_first_expression_wins_by_precedence_iso_before_relative() -> None:
    assert time_window("yesterday, i.e. 2023-05-08", NOW) == (ts(2023, 5, 8), ts(2023, 5, 9))


@pytest.mark.parametrize(
    "query",
    [
        "what did she paint recently?",
        "Where does Jon live now?",
        "which book is Gina currently reading",
        "her latest project",
        "is he still at the bakery?",
        "what did we talk about last time",
        "what happened last week",
        "anything from yesterday",
        "two days ago",
        "How are things these days?",
    ],
)
def test_queries_that_ask_about_the_recent(query: str) -> None:
    assert asks_about_recent(query)


@pytest.mark.parametrize(
    "query",
    [
        "What activities does Melanie partake in?",
        "what do I usually order?",
        "where did we go in May 2023",
        "where did she move from 4 years ago?",
        "the camping trip last year",
        "what do you know about the harbor",
        "the snowy mountains",
        "",
    ],
)
def test_queries_about_the_whole_history(query: str) -> None:
    assert not asks_about_recent(query)
