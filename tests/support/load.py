"""A mixed load on the API over loopback: ``clients`` concurrent clients each loop over a mix of
recall, remember, agent turns (the offline scripted model) and dashboard queries (memory
listings, scope stats, consolidation runs) on a few users of one org, for a bounded time.

The engine of the reliability suite's short load test and of ``benchmarks.reliability_load``
(the long run): ``drive`` returns a ``LoadReport`` with every request's latency, every error
and, when given a sampler, the API process's RSS once a second."""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

OPERATIONS: dict[str, tuple[str, Callable[[str, int], dict[str, Any]]]] = {
    "recall": (
        """query($s: String!, $q: String!) { recall(scope: $s, query: $q, first: 10) {
        items { score memory { id content } } } }""",
        lambda scope, i: {"s": scope, "q": f"What does the user like about topic {i % 40}?"},
    ),
    "remember": (
        """mutation($s: String!, $i: RememberInput!) { remember(scope: $s, input: $i) {
        __typename ... on MemoryPayload { memory { id } } ... on InputError { field message } } }""",
        lambda scope, i: {
            "s": scope,
            "i": {"layer": "SEMANTIC", "label": f"topic {i % 40}", "content": f"The user likes topic {i % 40}, #{i}."},
        },
    ),
    "turn": (
        """mutation($s: String!, $m: String!) { turn(scope: $s, message: $m) {
        __typename ... on TurnSuccess { reply errors { stage } } ... on InputError { field message } } }""",
        lambda scope, i: {"s": scope, "m": f"I enjoy topic {i % 40}. What do you remember?"},
    ),
    "memories": (
        """query($s: String!) { memories(scope: $s, first: 20) { edges { node { id label } } } }""",
        lambda scope, i: {"s": scope},
    ),
    "stats": (
        """query($s: String!) { stats(scope: $s) { counts { total } pendingLinks growth(days: 7) { day created } } }""",
        lambda scope, i: {"s": scope},
    ),
    "runs": (
        """query($s: String!) { consolidationRuns(scope: $s, first: 5) { runId status } }""",
        lambda scope, i: {"s": scope},
    ),
}
DEADLOCK = "Neo.TransientError.Transaction.DeadlockDetected"
"""The server's code for a deadlock between concurrent writers (the driver retries it)."""

MIX = ("recall", "recall", "recall", "remember", "remember", "turn", "memories", "stats", "runs")
"""One client's cycle: recall-heavy, as a memory under an agent is."""


@dataclass
class LoadReport:
    seconds: float
    clients: int
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    rss: list[tuple[float, int]] = field(default_factory=list)
    """(seconds since start, bytes) of the API process."""

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.latencies.values()) + len(self.errors)

    def summary(self) -> dict[str, Any]:
        every = [x for v in self.latencies.values() for x in v]
        out: dict[str, Any] = {
            "seconds": round(self.seconds, 1),
            "clients": self.clients,
            "requests": self.requests,
            "throughput_rps": round(self.requests / self.seconds, 1),
            "error_rate": round(len(self.errors) / max(self.requests, 1), 5),
            "errors_sample": self.errors[:5],
            "all": _percentiles(every),
        }
        out.update({name: _percentiles(lat) for name, lat in sorted(self.latencies.items())})
        if len(self.rss) >= 8:
            quarter = len(self.rss) // 4
            first = statistics.mean(b for _, b in self.rss[:quarter])
            last = statistics.mean(b for _, b in self.rss[-quarter:])
            out["rss_mb_first_quarter"] = round(first / 2**20, 1)
            out["rss_mb_last_quarter"] = round(last / 2**20, 1)
            out["rss_growth_pct"] = round(100 * (last - first) / first, 1)
        out["rss_curve_mb"] = [(round(t), round(b / 2**20, 1)) for t, b in self.rss]
        return out


def _percentiles(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {}
    qs = statistics.quantiles(xs, n=100) if len(xs) > 1 else [xs[0]] * 99
    return {"n": len(xs), "p50_ms": round(qs[49], 1), "p95_ms": round(qs[94], 1), "p99_ms": round(qs[98], 1)}


def _failure(response: httpx.Response) -> str | None:
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    body = response.json()
    if body.get("errors"):
        return f"GraphQL error: {json.dumps(body['errors'])[:200]}"
    for value in (body.get("data") or {}).values():
        if isinstance(value, dict) and value.get("__typename") == "InputError":
            return f"refused: {value}"
        if isinstance(value, dict) and value.get("errors"):
            return f"turn stage failed: {value['errors']}"
    return None


async def drive(
    url: str,
    token: str,
    scopes: list[str],
    *,
    seconds: float,
    clients: int,
    rss: Callable[[], int | None] = lambda: None,
) -> LoadReport:
    """Run the mix from ``clients`` concurrent clients for ``seconds``; sample ``rss()`` every second."""
    report = LoadReport(seconds=seconds, clients=clients)
    counter = itertools.count()
    started = time.monotonic()
    deadline = started + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    headers = {"Authorization": f"Bearer {token}"}

    async def client(n: int, http: httpx.AsyncClient) -> None:
        for name in itertools.cycle(MIX[n % len(MIX) :] + MIX[: n % len(MIX)]):
            if time.monotonic() >= deadline:
                return
            i = next(counter)
            query, variables = OPERATIONS[name]
            t0 = time.perf_counter()
            try:
                response = await http.post(
                    "/graphql", json={"query": query, "variables": variables(scopes[i % len(scopes)], i)}
                )
                problem = _failure(response)
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            if problem is None:
                report.latencies.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
            else:
                report.errors.append(f"{name}: {problem}")

    async def sampler() -> None:
        while time.monotonic() < deadline:
            value = rss()
            if value is not None:
                report.rss.append((time.monotonic() - started, value))
            await asyncio.sleep(1.0)

    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=120) as http:
        await asyncio.gather(sampler(), *(client(n, http) for n in range(clients)))
    report.seconds = time.monotonic() - started
    return report
