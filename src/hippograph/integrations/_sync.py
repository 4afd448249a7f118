"""Synchronous faces of the integrations: a coroutine run on the memory's event loop from
another thread, refused (with the caller's message) on that loop's own thread, where waiting
on it would wait on itself."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from hippograph.errors import ConfigurationError

T = TypeVar("T")


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def on_loop_thread(loop: asyncio.AbstractEventLoop) -> bool:
    """True when called on ``loop``'s own thread."""
    return running_loop() is loop or getattr(loop, "_thread_id", None) == threading.get_ident()


def run_on_loop(
    loop: asyncio.AbstractEventLoop, work: Coroutine[Any, Any, T], timeout: float | None, refusal: str
) -> T:
    """Run ``work`` on ``loop`` and wait for it; on the loop's own thread raise
    :class:`ConfigurationError` with ``refusal`` instead."""
    if on_loop_thread(loop):
        work.close()
        raise ConfigurationError(refusal)
    return asyncio.run_coroutine_threadsafe(work, loop).result(timeout)
