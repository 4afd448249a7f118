"""Prometheus metrics (requests, latencies, recall stages, Cypher calls per request, the store's
transient faults, the token ledger's failures) and the connection that counts Cypher calls for
the request it runs in."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hippograph.agent.budget import TokenBudget
from hippograph.retrieval.types import RecallTimings
from hippograph.store.connection import Neo4jConnection

T = TypeVar("T")


@dataclass
class CallCount:
    """Cypher calls (transactions or auto-commit statements) made for one request."""

    calls: int = 0


_current: contextvars.ContextVar[CallCount | None] = contextvars.ContextVar("hippograph_api_calls", default=None)


def start_counting() -> tuple[CallCount, contextvars.Token[CallCount | None]]:
    count = CallCount()
    return count, _current.set(count)


def stop_counting(token: contextvars.Token[CallCount | None]) -> None:
    _current.reset(token)


class CountingConnection(Neo4jConnection):
    """A :class:`Neo4jConnection` that counts every call it makes into the current request's
    :class:`CallCount` (tasks started inside a request inherit it)."""

    async def _guard(self, aw: Awaitable[T]) -> T:
        count = _current.get()
        if count is not None:
            count.calls += 1
        return await super()._guard(aw)


class StoreFaults(Collector):
    """``hippograph_store_transient_faults_total{code}``: the transient faults (deadlocks
    between concurrent writers, mostly) that the connection's managed transactions met and
    retried, read from :attr:`Neo4jConnection.transient_faults` at each scrape."""

    def __init__(self) -> None:
        self.conn: Neo4jConnection | None = None

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "hippograph_store_transient_faults",
            "Transient Neo4j faults retried inside managed transactions, by the server's code",
            labels=["code"],
        )
        if self.conn is not None:
            for code, n in sorted(self.conn.transient_faults.items()):
                family.add_metric([code], n)
        yield family


class LedgerFaults(Collector):
    """``hippograph_budget_ledger_failures_total{step}``: the token ledger's errors that turns
    logged and went on past (``check``: the turn ran unchecked; ``charge``: its tokens were
    not added), read from the agent's :class:`~hippograph.agent.TokenBudget` at each scrape."""

    def __init__(self) -> None:
        self.budget: TokenBudget | None = None

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "hippograph_budget_ledger_failures",
            "Token ledger errors that turns logged and went on past, by step",
            labels=["step"],
        )
        if self.budget is not None:
            family.add_metric(["check"], self.budget.failures.check)
            family.add_metric(["charge"], self.budget.failures.charge)
        yield family


@dataclass
class ApiMetrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    store_faults: StoreFaults = field(default_factory=StoreFaults)
    ledger_failures: LedgerFaults = field(default_factory=LedgerFaults)

    def __post_init__(self) -> None:
        self.registry.register(self.store_faults)
        self.registry.register(self.ledger_failures)
        self.requests = Counter(
            "hippograph_api_requests", "HTTP requests", ["route", "method", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "hippograph_api_request_seconds", "HTTP request latency", ["route"], registry=self.registry
        )
        self.operations = Counter(
            "hippograph_api_graphql_operations", "GraphQL operations", ["type"], registry=self.registry
        )
        self.cypher_calls = Histogram(
            "hippograph_api_cypher_calls_per_operation",
            "Cypher calls per GraphQL operation",
            buckets=(1, 2, 3, 5, 8, 13, 21, 34, 55, 89),
            registry=self.registry,
        )
        self.recall_stage = Histogram(
            "hippograph_api_recall_stage_seconds", "Recall time per stage", ["stage"], registry=self.registry
        )

    def observe_recall(self, timings: RecallTimings) -> None:
        for stage in ("embed", "candidates", "activation", "scoring", "total"):
            self.recall_stage.labels(stage).observe(getattr(timings, f"{stage}_ms") / 1000.0)

    def render(self) -> Response:
        return Response(generate_latest(self.registry), media_type="text/plain; version=0.0.4; charset=utf-8")


METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""HTTP methods counted by name; any other is counted as ``other`` (a client may send any token:
each would add a series to the counter, a table that grew without bound)."""


class MetricsMiddleware:
    """Counts and times every HTTP request by its route template (never the raw path)."""

    def __init__(self, app: ASGIApp, metrics: ApiMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            name = getattr(route, "path", "unmatched")
            method = scope.get("method", "")
            self.metrics.requests.labels(name, method if method in METHODS else "other", str(status)).inc()
            self.metrics.latency.labels(name).observe(time.perf_counter() - started)
