"""The pieces of the open-loop load test that need neither Locust nor a server: the request mix
and its order, the per-user timetable that makes a fixed number of Locust users issue requests at
a constant arrival rate, the step search for the highest rate held, the report built from
every request's record and the memory samples, the real-text shape's request variables, and
the summary of a py-spy profile of the server. ``benchmarks.load_open_loop`` runs them;
``tests/unit/test_open_loop.py`` checks them.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

MIX: dict[str, int] = {"recall": 8, "memories": 5, "remember": 4, "turn": 3}
"""Requests of each operation in every 20: a dashboard beside an agent. Recall is the agent's
and the dashboard's search (40 %), listings page the dashboard's memory view (25 %), remember
is the explicit writes (20 %) and turns the agent's own traffic (15 %: each one also recalls,
calls the offline scripted model and extracts and writes memories)."""

P99_BOUND_MS = 1000.0
LATE_MS = 100.0
"""A request sent more than this after its slot in the timetable counts as late (reported; a late
request that was not blocked by an answer is the load generator's own delay, not the server's)."""


def interleave(weights: Mapping[str, int], n: int) -> list[str]:
    """``n`` operation names in the order they are sent: smooth weighted round robin, so that
    every window of ``sum(weights)`` consecutive requests holds the mix exactly."""
    if not weights or any(w <= 0 for w in weights.values()):
        raise ValueError("every weight must be positive")
    total = sum(weights.values())
    current = dict.fromkeys(weights, 0)
    out: list[str] = []
    for _ in range(n):
        for name, weight in weights.items():
            current[name] += weight
        pick = max(current, key=lambda k: current[k])
        current[pick] -= total
        out.append(pick)
    return out


@dataclass(frozen=True)
class Timetable:
    """A fixed set of Locust users, each sending one request every ``interval`` seconds, the
    users' phases spread evenly over one interval: together one arrival every ``1 / rate`` s.

    User ``u`` sends its ``j``-th request at ``u * interval / users + j * interval`` seconds from
    the start, whatever the answers' latency, so the arrivals stay on time as long as no answer
    takes longer than ``interval`` (the headroom)."""

    rate: float
    users: int
    interval: float

    def slot(self, user: int, j: int) -> float:
        """Seconds from the start at which ``user`` sends its ``j``-th request."""
        return (user % self.users) * self.interval / self.users + j * self.interval


def timetable(rate: float, headroom_s: float = 10.0) -> Timetable:
    """The timetable for ``rate`` requests a second, each user waiting at most ``headroom_s``
    for an answer before it falls behind its next slot."""
    if rate <= 0 or headroom_s <= 0:
        raise ValueError("rate and headroom must be positive")
    users = max(1, math.ceil(rate * headroom_s))
    return Timetable(rate=rate, users=users, interval=users / rate)


@dataclass(frozen=True)
class RequestRecord:
    """One request as Locust saw it."""

    name: str
    t: float
    """Seconds from the start of the timetable to the request's send."""
    ms: float
    lag_ms: float
    """How long after its slot in the timetable the request was sent."""
    blocked: bool = False
    """Sent late because the user's previous answer came after this request's slot."""
    error: str | None = None


@dataclass(frozen=True)
class MemorySample:
    t: float
    """Seconds from the start of the run."""
    api_rss: int | None = None
    neo4j_rss: int | None = None
    heap_used: int | None = None
    heap_committed: int | None = None
    heap_max: int | None = None
    old_gen_after_gc: int | None = None
    """The old generation's size after the last collection: the live data, without garbage."""


def percentiles(xs: Sequence[float]) -> dict[str, float]:
    """n, p50, p90, p95, p99, p99.9 and max of latencies in milliseconds (empty for none)."""
    if not xs:
        return {}
    qs = statistics.quantiles(xs, n=1000, method="inclusive") if len(xs) > 1 else [xs[0]] * 999
    out: dict[str, float] = {"n": len(xs)}
    for label, index in (("p50", 499), ("p90", 899), ("p95", 949), ("p99", 989), ("p99.9", 998)):
        out[f"{label}_ms"] = round(qs[index], 1)
    out["max_ms"] = round(max(xs), 1)
    return out


def memory_summary(samples: Sequence[MemorySample]) -> dict[str, Any]:
    """Per series (MiB): the mean of the first and of the last quarter of the samples, the growth
    between them, the lowest and the highest; and the samples themselves."""
    out: dict[str, Any] = {"samples": [_in_mib(s) for s in samples]}
    for series in ("api_rss", "neo4j_rss", "heap_used", "heap_committed", "old_gen_after_gc"):
        values = [(s.t, getattr(s, series)) for s in samples if getattr(s, series) is not None]
        if len(values) < 4:
            continue
        quarter = len(values) // 4
        first = statistics.mean(v for _, v in values[:quarter])
        last = statistics.mean(v for _, v in values[-quarter:])
        out[series] = {
            "first_quarter_mib": _mib(first),
            "last_quarter_mib": _mib(last),
            "growth_pct": round(100 * (last - first) / first, 1) if first else None,
            "min_mib": _mib(min(v for _, v in values)),
            "max_mib": _mib(max(v for _, v in values)),
        }
    return out


def build_report(
    records: Iterable[RequestRecord], *, rate: float, seconds: float, samples: Sequence[MemorySample] = ()
) -> dict[str, Any]:
    """Everything one run measured: the rate asked for and the rate sent, errors, latency
    percentiles over all requests and per operation, how late the arrivals were, and memory.
    Requests whose slot came at ``seconds`` or later are left out: Locust runs a little longer."""
    records = [r for r in records if r.t - r.lag_ms / 1000 < seconds]
    ok = [r for r in records if r.error is None]
    errors = [r for r in records if r.error is not None]
    per_op: dict[str, list[float]] = {}
    for r in ok:
        per_op.setdefault(r.name, []).append(r.ms)
    windows: dict[int, int] = {}
    for r in records:
        windows[int(r.t // 10)] = windows.get(int(r.t // 10), 0) + 1
    whole = [windows.get(w, 0) / 10 for w in range(int(seconds // 10))]
    lags = [r.lag_ms for r in records]
    return {
        "target_rps": rate,
        "seconds": seconds,
        "requests": len(records),
        "sent_rps": round(len(records) / seconds, 2) if seconds else 0.0,
        "sent_rps_per_10s": {"min": min(whole, default=0.0), "max": max(whole, default=0.0)},
        "errors": len(errors),
        "errors_sample": [f"{r.name}: {r.error}" for r in errors[:5]],
        "all": percentiles([r.ms for r in ok]),
        "operations": {name: percentiles(ms) for name, ms in sorted(per_op.items())},
        "lag": {
            "late": sum(lag > LATE_MS for lag in lags),
            "max_ms": round(max(lags, default=0.0), 1),
            "blocked": sum(r.blocked for r in records),
        },
        "memory": memory_summary(samples),
    }


def passes(report: Mapping[str, Any], p99_bound_ms: float = P99_BOUND_MS) -> bool:
    """Held: no error, p99 within the bound, the rate asked for was sent, and no request waited
    for an earlier answer (else the server's slowness would have lowered the rate it was
    offered, and the test were not open-loop)."""
    p99 = report["all"].get("p99_ms")
    on_time = report["lag"]["blocked"] == 0 and report["sent_rps"] >= 0.95 * report["target_rps"]
    return report["errors"] == 0 and p99 is not None and p99 <= p99_bound_ms and on_time


@dataclass
class StepSearch:
    """Rates to try, one short step each: up by ``factor`` while every step holds, then halving
    the gap between the highest rate held and the lowest one that failed, until they are within
    ``resolution`` (a ratio) of each other. A first step that fails goes down by ``factor``."""

    start: float
    factor: float = 1.5
    resolution: float = 1.15
    floor: float = 0.25
    steps: list[tuple[float, bool]] = field(default_factory=list)

    def record(self, rate: float, held: bool) -> None:
        self.steps.append((rate, held))

    @property
    def held(self) -> float | None:
        """The highest rate that held, if any did."""
        return max((rate for rate, ok in self.steps if ok), default=None)

    def next_rate(self) -> float | None:
        """The rate of the next step, or None when the search is over."""
        if not self.steps:
            return self.start
        held = self.held
        failed = min((rate for rate, ok in self.steps if not ok and (held is None or rate > held)), default=None)
        if failed is None:
            return round(self.steps[-1][0] * self.factor, 2)
        if held is None:
            lower = round(failed / self.factor, 2)
            return lower if lower >= self.floor else None
        if failed / held <= self.resolution:
            return None
        return round(math.sqrt(held * failed), 2)


def _mib(value: float) -> float:
    return round(value / 2**20, 1)


def _in_mib(sample: MemorySample) -> dict[str, float | None]:
    return {k: (v if k == "t" or v is None else _mib(v)) for k, v in asdict(sample).items()}


Variables = Callable[[str, str, int], dict[str, Any]]
"""An operation's GraphQL variables from its name, the scope it goes to and its number."""


def realtext_variables(questions: Mapping[str, Sequence[str]], turns: Mapping[str, Sequence[str]]) -> Variables:
    """The real-text shape's variables: recalls ask, and turns say, the scope's own questions
    (in turn, from different offsets); remember writes one of the scope's real turns, labelled
    with its first words; a listing needs only the scope."""

    def variables(name: str, scope: str, i: int) -> dict[str, Any]:
        asked, said = questions[scope], turns[scope]
        if name == "recall":
            return {"s": scope, "q": asked[i % len(asked)]}
        if name == "turn":
            return {"s": scope, "m": asked[(i + len(asked) // 2) % len(asked)]}
        if name == "remember":
            text = said[i % len(said)]
            return {"s": scope, "i": {"layer": "SEMANTIC", "label": " ".join(text.split()[:6])[:80], "content": text}}
        return {"s": scope}

    return variables


_PACKAGE = re.compile(r"[\\/](?:site|dist)-packages[\\/]([A-Za-z0-9_]+)")


def area_of(file: str) -> str:
    """Whose code a frame's file is: ``hippograph``, an installed package's import name, or
    ``python`` (the standard library and anything else)."""
    if "/hippograph/" in file.replace("\\", "/"):
        return "hippograph"
    found = _PACKAGE.search(file)
    return found.group(1) if found else "python"


def speedscope_summary(doc: Mapping[str, Any], top: int = 15) -> dict[str, Any]:
    """Where a py-spy profile's time went: the seconds each thread was active (py-spy leaves idle
    time out), then over every thread the share of that time whose innermost frame is each
    area's code (``self_pct_by_area``, see :func:`area_of`), the functions most often innermost,
    and hippograph's functions most often on the stack (``total_pct``: itself or what it called)."""
    frames = doc["shared"]["frames"]
    names = [f"{f['name']} ({f.get('file', '?')}:{f.get('line', '?')})" for f in frames]
    areas = [area_of(str(f.get("file", ""))) for f in frames]
    own: Counter[int] = Counter()
    total: Counter[int] = Counter()
    threads: Counter[str] = Counter()
    for profile in doc["profiles"]:
        weights = profile.get("weights") or [1] * len(profile["samples"])
        for stack, weight in zip(profile["samples"], weights, strict=True):
            if not stack:
                continue
            threads[str(profile.get("name", "?"))] += weight
            own[stack[-1]] += weight
            for index in set(stack):
                total[index] += weight
    active = sum(threads.values())
    if not active:
        return {"active_seconds": 0}
    by_area: Counter[str] = Counter()
    for index, n in own.items():
        by_area[areas[index]] += n
    ours = [(i, n) for i, n in total.most_common() if areas[i] == "hippograph"]

    def pct(n: float) -> float:
        return round(100 * n / active, 1)

    return {
        "active_seconds": round(active, 2),
        "active_seconds_by_thread": {name: round(n, 2) for name, n in threads.most_common(top)},
        "self_pct_by_area": {area: pct(n) for area, n in by_area.most_common()},
        "self_pct_top": {names[i]: pct(n) for i, n in own.most_common(top)},
        "total_pct_top_hippograph": {names[i]: pct(n) for i, n in ours[:top]},
    }
