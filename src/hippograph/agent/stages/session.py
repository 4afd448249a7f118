"""Session stage: open (or resume) the chat, then hold its lock for the rest of the turn.

A graph that cannot be read does not stop the chat: the session opens without its history
and the failure is a ``StageFailed`` event. The failures of the session's previous
background work are reported first thing once the lock is held.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState

log = logging.getLogger(__name__)

Inner = Callable[[], AsyncIterator[AgentEvent]]


async def run(t: TurnState, d: StageDeps, inner: Inner) -> AsyncIterator[AgentEvent]:
    """Open the session, then run ``inner`` (the rest of the turn) under its lock."""
    resume_error: StageFailed | None = None
    with t.clock.time(Stage.SESSION):
        try:
            t.session = await d.sessions.open(t.scope, t.session_id)
        except Exception as exc:  # the graph is down: chat on without the history
            log.warning("session resume failed: %s", type(exc).__name__, exc_info=True)
            t.session = await d.sessions.open(t.scope, t.session_id, resume=False)
            resume_error = StageFailed.from_exception(Stage.SESSION, exc)
    if resume_error is not None:
        yield resume_error
    async with _locked(t):
        for error in t.require_session().take_errors():
            yield error
        async for event in inner():
            yield event


@asynccontextmanager
async def _locked(t: TurnState) -> AsyncIterator[None]:
    """The session's lock; the wait for it counts towards the session stage."""
    session = t.require_session()
    started = time.perf_counter()
    async with session.lock:
        t.clock.add(Stage.SESSION, (time.perf_counter() - started) * 1000.0)
        yield
