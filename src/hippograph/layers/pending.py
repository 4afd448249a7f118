"""Writes that are scheduled but not finished, by scope — so erasing a scope waits for them.

An agent consolidates a turn in the background, after the reply: the turn's memories are
written a moment later. Erasing the scope in that moment must not let them land afterwards
(an erase that a late write undoes is no erase). Whoever schedules such work registers it
here; :meth:`~hippograph.memory.Memory.forget` settles the scope's subtree first.
"""

from __future__ import annotations

import asyncio

from hippograph.scope import Scope


class PendingWrites:
    """Tasks that will write into a scope, kept until they finish."""

    def __init__(self) -> None:
        self._tasks: dict[asyncio.Task[object], Scope] = {}

    def track(self, scope: Scope, task: asyncio.Task[object]) -> None:
        """Remember ``task`` as writing into ``scope`` until it is done."""
        if task.done():
            return
        self._tasks[task] = scope
        task.add_done_callback(self._forget_task)

    def within(self, scope: Scope) -> list[asyncio.Task[object]]:
        """The unfinished tasks writing into ``scope`` or below it."""
        return [task for task, target in self._tasks.items() if scope.is_ancestor_of(target)]

    async def settle(self, scope: Scope) -> None:
        """Wait until no task writes into ``scope``'s subtree; their failures are theirs (each
        task reports its own), not the waiter's. The calling task itself is never waited for."""
        current = asyncio.current_task()
        while tasks := [t for t in self.within(scope) if t is not current]:
            await asyncio.wait(tasks)

    def _forget_task(self, task: asyncio.Task[object]) -> None:
        self._tasks.pop(task, None)
