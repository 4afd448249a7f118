"""The recall statement's background planning (``RecallEngine.warm_plans``): started once, it
never raises (a failure is logged), a recall that starts meanwhile waits for it, and
``stop_warming`` (``Memory.close``) cancels it and leaves no task behind."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.engine import RecallEngine


class SlowRepo:
    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.warmed: list[dict[str, Any]] = []
        self.cancelled = False

    async def warm_recall(self, **params: Any) -> None:
        self.warmed.append(params)
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        if self.fail:
            raise RuntimeError("server said no")


def engine(repo: SlowRepo) -> RecallEngine:
    store = SimpleNamespace(conn=None, vector_fetch_k=100)
    eng = RecallEngine(store, HashingEmbeddings(dimensions=8))  # type: ignore[arg-type]
    eng.repo = repo  # type: ignore[assignment]
    return eng


async def test_warming_runs_once_in_the_background_and_stops_when_asked() -> None:
    repo = SlowRepo()
    eng = engine(repo)
    eng.warm_plans()
    eng.warm_plans()  # idempotent
    await asyncio.wait_for(repo.started.wait(), 1)
    assert len(repo.warmed) == 1 and repo.warmed[0]["dimensions"] == 8
    task = eng._warming
    assert task is not None
    await eng.stop_warming()
    assert task.done() and repo.cancelled and eng._warming is None
    await eng.stop_warming()  # twice is fine


async def test_a_recall_started_meanwhile_waits_for_the_plan() -> None:
    repo = SlowRepo()
    eng = engine(repo)
    eng.warm_plans()
    await repo.started.wait()
    waiter = asyncio.create_task(eng._after_warming())
    await asyncio.sleep(0.01)
    assert not waiter.done()
    repo.release.set()
    await asyncio.wait_for(waiter, 1)
    waiter2 = asyncio.create_task(eng._after_warming())  # done: no wait
    await asyncio.wait_for(waiter2, 0.1)
    await eng.stop_warming()


async def test_a_failure_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    repo = SlowRepo(fail=True)
    eng = engine(repo)
    repo.release.set()
    with caplog.at_level(logging.WARNING, logger="hippograph.retrieval.engine"):
        eng.warm_plans()
        await eng._after_warming()
    assert "warming the statement's plan failed: RuntimeError" in caplog.text
    await eng.stop_warming()


async def test_a_cancelled_recall_leaves_the_warming_running() -> None:
    repo = SlowRepo()
    eng = engine(repo)
    eng.warm_plans()
    await repo.started.wait()
    waiter = asyncio.create_task(eng._after_warming())
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert eng._warming is not None and not eng._warming.done()
    await eng.stop_warming()
