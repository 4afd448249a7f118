"""Locust's side of ``benchmarks.load_open_loop``: a fixed number of users, each sending the next
request of a prepared plan at its own slots of one timetable (``benchmarks.open_loop.Timetable``),
so that the requests arrive at a constant rate whatever the answers' latency.

Locust's users are closed loops (a user waits for its answer before its next task), and
``constant_pacing`` re-bases every cycle on the last task's start, so it drifts. Here the wait
is measured against an absolute timetable instead: user ``u`` sends at
``u * interval / users + j * interval``; with ``users = rate * headroom`` a user falls behind its
next slot only when an answer takes longer than the headroom. Every request records how late it
was sent (``lag_ms``) and whether that was because the user's previous answer overran its slot
(``blocked``): a blocked request means the run was not open-loop there; a late one that was not
blocked is the load generator's own scheduling (a busy CPU).

Read from the environment: ``HIPPOGRAPH_LOAD_PLAN`` (JSON: token, rate, users, interval and the
request bodies in sending order) and ``HIPPOGRAPH_LOAD_RECORDS`` (JSON lines written at exit,
one per request: name, t, ms, lag_ms, blocked, error).
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import gevent
from locust import FastHttpUser, events, task

from tests.support.load import _failure

PLAN: dict[str, Any] = json.loads(Path(os.environ["HIPPOGRAPH_LOAD_PLAN"]).read_text())
RECORDS: list[dict[str, Any]] = []
_requests = itertools.count()
_users = itertools.count()
_origin: list[float] = []


class Client(FastHttpUser):
    connection_timeout = 30.0
    network_timeout = 120.0

    def on_start(self) -> None:
        if not _origin:
            _origin.append(time.perf_counter() + 1.0)  # every user is spawned within this second
        self.user = next(_users) % PLAN["users"]
        self.j = 0
        self.blocked = False
        gevent.sleep(max(0.0, self.slot() - time.perf_counter()))

    def slot(self) -> float:
        return _origin[0] + self.user * PLAN["interval"] / PLAN["users"] + self.j * PLAN["interval"]

    def wait_time(self) -> float:
        self.j += 1
        wait = self.slot() - time.perf_counter()
        self.blocked = wait < 0  # the last answer came after this user's next slot: closed-loop back-pressure
        return max(0.0, wait)

    @task
    def send(self) -> None:
        request = PLAN["requests"][next(_requests) % len(PLAN["requests"])]
        sent = time.perf_counter()
        record = {"name": request["name"], "t": sent - _origin[0], "lag_ms": (sent - self.slot()) * 1000}
        record["blocked"] = self.blocked
        headers = {"Authorization": f"Bearer {PLAN['token']}"}
        with self.client.post(
            "/graphql", json=request["body"], headers=headers, name=request["name"], catch_response=True
        ) as response:
            problem = _failure(response) if response.status_code else f"no answer: {response.error!r}"[:200]
            if problem is None:
                response.success()
            else:
                response.failure(problem)
        record.update(ms=(time.perf_counter() - sent) * 1000, error=problem)
        RECORDS.append(record)


@events.quitting.add_listener
def _write_records(**_: Any) -> None:
    Path(os.environ["HIPPOGRAPH_LOAD_RECORDS"]).write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
