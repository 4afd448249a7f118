"""Holding a recall's bookkeeping back while the caller's latency counts.

Every recall writes what it returned and reached (access counts, pending links) after it
answers, as background work. A caller on a latency-critical path, such as the agent turn
before its model call, holds that work back: recalls made inside :func:`holding` hand their
bookkeeping to the :class:`HeldBookkeeping` instead of starting it, and the caller starts all
of it with :meth:`HeldBookkeeping.release` once the latency no longer counts (the agent:
after the model's reply). The caller must release in a ``finally``: held work that is never
released is never written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["HeldBookkeeping", "held", "holding"]

_HOLDER: ContextVar[HeldBookkeeping | None] = ContextVar("hippograph_held_bookkeeping", default=None)


class HeldBookkeeping:
    """The bookkeeping of the recalls made while it was held, not started yet."""

    def __init__(self) -> None:
        self._starts: list[Callable[[], None]] = []

    def __len__(self) -> int:
        return len(self._starts)

    def add(self, start: Callable[[], None]) -> None:
        """Keep ``start`` (which starts one recall's bookkeeping) until :meth:`release`."""
        self._starts.append(start)

    def release(self) -> None:
        """Start the held bookkeeping, each recall's in the order they answered (idempotent:
        what was released is not started again)."""
        starts, self._starts = self._starts, []
        for start in starts:
            start()


@contextmanager
def holding(holder: HeldBookkeeping | None) -> Iterator[None]:
    """Recalls made inside hand their bookkeeping to ``holder`` (None: they start it at once,
    as without this). The holding is the current context's: concurrent tasks started
    inside copy it, and it ends with the block."""
    if holder is None:
        yield
        return
    token = _HOLDER.set(holder)
    try:
        yield
    finally:
        _HOLDER.reset(token)


def held() -> HeldBookkeeping | None:
    """The holder of the recall under way (None: its bookkeeping starts at once)."""
    return _HOLDER.get()
