"""The open-loop load test's own pieces (``benchmarks/open_loop.py``), without Locust or a server:
the mix's order, the timetable's arrivals, the report, the pass rule, the step search, the
real-text shape's variables and the py-spy profile's summary. The run itself is a benchmark
(``python -m benchmarks.load_open_loop``)."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from benchmarks.open_loop import (
    MIX,
    MemorySample,
    RequestRecord,
    StepSearch,
    build_report,
    interleave,
    memory_summary,
    passes,
    percentiles,
    realtext_variables,
    speedscope_summary,
    timetable,
)
from tests.support.load import OPERATIONS


def test_every_window_of_the_mix_holds_it_exactly() -> None:
    names = interleave(MIX, 200)
    period = sum(MIX.values())
    for start in range(0, 200 - period + 1):
        assert Counter(names[start : start + period]) == Counter(MIX), start
    assert names[:3] != ["recall"] * 3, "the heaviest operation is spread, not sent in bursts"


@pytest.mark.parametrize("weights", [{}, {"recall": 0}, {"recall": 2, "turn": -1}])
def test_a_mix_without_positive_weights_is_refused(weights: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="positive"):
        interleave(weights, 5)


@pytest.mark.parametrize(("rate", "headroom"), [(7.5, 10.0), (0.5, 10.0), (13.0, 4.0)])
def test_the_timetable_spaces_arrivals_evenly_at_the_rate(rate: float, headroom: float) -> None:
    table = timetable(rate, headroom)
    assert table.interval >= headroom, "a user falls behind only after the headroom"
    slots = sorted(table.slot(u, j) for u in range(table.users) for j in range(5))
    gaps = [b - a for a, b in itertools.pairwise(slots)]
    assert min(gaps) == pytest.approx(1 / rate) and max(gaps) == pytest.approx(1 / rate)


def test_a_rate_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError):
        timetable(0)


def test_percentiles_of_a_known_spread() -> None:
    got = percentiles([float(ms) for ms in range(1, 1001)])
    assert got["n"] == 1000 and got["max_ms"] == 1000
    assert got["p50_ms"] == pytest.approx(500, abs=1) and got["p99_ms"] == pytest.approx(990, abs=1)
    assert got["p99.9_ms"] == pytest.approx(999, abs=1)
    assert percentiles([]) == {} and percentiles([3.0])["p99_ms"] == 3.0


def _records(rate: float, seconds: float, ms: float = 50.0) -> list[RequestRecord]:
    names = interleave(MIX, int(rate * seconds) + 10)
    return [RequestRecord(name=n, t=k / rate + 0.0005, ms=ms, lag_ms=0.5) for k, n in enumerate(names)]


def _samples(n: int, api_growth: float) -> list[MemorySample]:
    mib = 2**20
    return [
        MemorySample(t=10.0 * k, api_rss=int((100 + api_growth * k) * mib), heap_used=(300 + 50 * (k % 3)) * mib)
        for k in range(n)
    ]


def test_the_report_has_rates_percentiles_lateness_and_memory() -> None:
    records = _records(rate=4, seconds=60)
    records[7] = RequestRecord(name="turn", t=records[7].t, ms=30.0, lag_ms=250.0, error="HTTP 503: busy")
    records[9] = RequestRecord(name=records[9].name, t=records[9].t, ms=50.0, lag_ms=1200.0, blocked=True)
    report = build_report(records, rate=4, seconds=60, samples=_samples(7, api_growth=0))
    assert report["requests"] == 240, "requests slotted after the run's end are left out"
    assert report["sent_rps"] == 4 and report["sent_rps_per_10s"] == {"min": 4, "max": 4}
    assert report["errors"] == 1 and report["errors_sample"] == ["turn: HTTP 503: busy"]
    assert report["all"]["n"] == 239 and report["all"]["p99_ms"] == 50 and report["all"]["p50_ms"] == 50
    assert set(report["operations"]) == set(MIX)
    assert report["operations"]["recall"]["n"] == 96
    assert report["lag"] == {"late": 2, "max_ms": 1200.0, "blocked": 1}
    assert len(report["memory"]["samples"]) == 7 and report["memory"]["samples"][0]["api_rss"] == 100
    assert report["memory"]["api_rss"]["growth_pct"] == 0
    assert not passes(report)


def test_memory_growth_is_measured_between_the_first_and_last_quarter() -> None:
    summary = memory_summary(_samples(8, api_growth=10))
    assert summary["api_rss"]["first_quarter_mib"] == 105 and summary["api_rss"]["last_quarter_mib"] == 165
    assert summary["api_rss"]["growth_pct"] == pytest.approx(57.1)
    assert summary["heap_used"]["min_mib"] == 300 and summary["heap_used"]["max_mib"] == 400
    assert "neo4j_rss" not in summary, "a series never sampled is left out"
    assert "api_rss" not in memory_summary(_samples(3, api_growth=0)), "too few samples for quarters"


def _with(report: dict[str, object], **changes: object) -> dict[str, object]:
    return {**report, **changes}


def test_a_run_holds_only_without_errors_within_the_bound_and_open_loop() -> None:
    good = build_report(_records(rate=5, seconds=30), rate=5, seconds=30)
    assert passes(good)
    assert not passes(build_report(_records(rate=5, seconds=30, ms=1200), rate=5, seconds=30))
    assert not passes(_with(good, errors=1))
    assert not passes(_with(good, lag={"late": 3, "max_ms": 900.0, "blocked": 1})), "an answer held a request back"
    assert passes(_with(good, lag={"late": 3, "max_ms": 600.0, "blocked": 0})), "the load generator was late itself"
    assert not passes(_with(good, sent_rps=4.0)), "the server's slowness lowered the rate offered"
    assert not passes(_with(good, all={})), "no answer at all"


def _search(capacity: float, start: float) -> StepSearch:
    search = StepSearch(start=start)
    while (rate := search.next_rate()) is not None:
        assert len(search.steps) < 20
        search.record(rate, held=rate <= capacity)
    return search


@pytest.mark.parametrize(("capacity", "start"), [(9.3, 4.0), (30.0, 4.0), (4.0, 4.0), (1.1, 4.0)])
def test_the_step_search_ends_within_its_resolution_of_the_capacity(capacity: float, start: float) -> None:
    search = _search(capacity, start)
    held = search.held
    assert held is not None and held <= capacity
    failed = min(rate for rate, ok in search.steps if not ok)
    assert failed / held <= search.resolution and failed > capacity
    assert len(search.steps) <= 9


def test_the_step_search_gives_up_below_its_floor() -> None:
    search = _search(capacity=0.1, start=4.0)
    assert search.held is None
    assert min(rate for rate, _ in search.steps) >= search.floor


def test_the_realtext_shape_sends_each_scopes_own_real_text() -> None:
    variables = realtext_variables(
        {"org:a": ["Where did Ana go?", "Who painted it?"], "org:b": ["What did Bo buy?"]},
        {"org:a": ["I went to Lisbon with my sister last week.", "Painting again!"], "org:b": ["A new bike."]},
    )
    assert variables("recall", "org:a", 1) == {"s": "org:a", "q": "Who painted it?"}
    assert variables("turn", "org:b", 5) == {"s": "org:b", "m": "What did Bo buy?"}
    fact = variables("remember", "org:a", 0)["i"]
    assert fact == {"layer": "SEMANTIC", "label": "I went to Lisbon with my", "content": fact["content"]}
    assert fact["content"] == "I went to Lisbon with my sister last week."
    assert variables("memories", "org:b", 3) == {"s": "org:b"}
    for name in MIX:  # every operation of the mix gets the variables its document declares
        declared = set(re.findall(r"\$(\w+):", OPERATIONS[name][0]))
        assert set(variables(name, "org:a", 2)) == declared


def test_the_profile_summary_splits_samples_by_whose_code_ran() -> None:
    frames = [
        {"name": "run", "file": "/x/lib/python3.11/asyncio/base_events.py", "line": 1},
        {"name": "recall", "file": "/w/src/hippograph/memory/facade.py", "line": 2},
        {"name": "run", "file": "/v/lib/python3.11/site-packages/neo4j/_async/work.py", "line": 3},
        {"name": "validate", "file": "/v/lib/python3.11/site-packages/pydantic/main.py", "line": 4},
    ]
    doc = {
        "shared": {"frames": frames},
        "profiles": [
            {"name": "main", "samples": [[0, 1, 2], [0, 1, 2], [0, 1], []], "weights": [0.5, 0.5, 0.5, 0.5]},
            {"name": "worker", "samples": [[0, 3]], "weights": [0.5]},
        ],
    }
    summary = speedscope_summary(doc)
    assert summary["active_seconds"] == 2.0
    assert summary["active_seconds_by_thread"] == {"main": 1.5, "worker": 0.5}
    assert summary["self_pct_by_area"] == {"neo4j": 50.0, "hippograph": 25.0, "pydantic": 25.0}
    assert list(summary["total_pct_top_hippograph"].values()) == [75.0]
    assert speedscope_summary({"shared": {"frames": []}, "profiles": []}) == {"active_seconds": 0}
