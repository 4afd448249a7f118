"""The nightly consolidation ``hippograph serve`` runs by itself when its settings give a
schedule (``HIPPOGRAPH_API_NIGHTLY__AT=03:30`` or ``…__EVERY=3600``): one task of the app's
lifespan, cancelled at shutdown (a run in progress is stopped the consolidator's way: its
statements terminated, its report saved as failed, its lease given back).

Each run is :meth:`~hippograph.consolidation.SleepConsolidator.nightly_nap` of every scope the
schedule names, or of every root scope (tenant) of the database, one after another. A scope
another run holds is skipped until the next night; a failure is logged and the next scope runs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from hippograph.app.api.repository.scopes import ScopeRepository
from hippograph.app.api.settings import NightlySchedule
from hippograph.consolidation import SleepConsolidator
from hippograph.consolidation.report import RunStatus
from hippograph.errors import AlreadyRunningError
from hippograph.scope import Scope

log = logging.getLogger(__name__)
PAGE = 500


@dataclass
class NightlyCounts:
    """What the nightly runs of this process did, by outcome (for logs and tests)."""

    passes: int = 0
    completed: int = 0
    busy: int = 0
    failed: int = 0


class NightlyRunner:
    """Runs the nightly consolidation on a schedule until cancelled.

    Args:
        consolidator: Runs the nightly naps (its config must allow them).
        scopes: Lists the root scopes when the schedule names none.
        schedule: When, and over which scopes.
        clock: Epoch seconds now.
        sleep: Waits that many seconds (injected in tests).
    """

    def __init__(
        self,
        consolidator: SleepConsolidator,
        scopes: ScopeRepository,
        schedule: NightlySchedule,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.consolidator = consolidator
        self.scopes = scopes
        self.schedule = schedule
        self.clock = clock
        self.sleep = sleep
        self.counts = NightlyCounts()

    async def forever(self) -> None:
        """Wait for each scheduled time and run a pass, until cancelled."""
        while True:
            await self.sleep(self.schedule.seconds_until_next(self.clock()))
            await self.run_pass()

    async def run_pass(self) -> None:
        """One nightly run over every scope of the schedule."""
        self.counts.passes += 1
        async for scope in self._targets():
            try:
                report = await self.consolidator.nightly_nap(scope)
            except AlreadyRunningError:
                self.counts.busy += 1
                log.info("nightly consolidation of %s skipped: another run holds the scope", scope.key)
                continue
            except Exception as exc:
                self.counts.failed += 1
                log.warning("nightly consolidation of %s failed: %s", scope.key, type(exc).__name__, exc_info=True)
                continue
            if report.status is RunStatus.COMPLETED:
                self.counts.completed += 1
            else:
                self.counts.failed += 1

    async def _targets(self) -> AsyncIterator[Scope]:
        if self.schedule.scopes:
            for key in self.schedule.scopes:
                yield Scope.parse(key)
            return
        after: str | None = None
        while True:
            page = await self.scopes.roots(after, PAGE)
            for row in page:
                yield Scope.parse(row.key)
            if len(page) < PAGE:
                return
            after = page[-1].key
