"""What the lifespan builds once and every request uses: the memory, the consolidator, the
agent, the API repository, settings and metrics (and the nightly runner, when scheduled)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hippograph.agent import Agent
from hippograph.app.api.metrics import ApiMetrics
from hippograph.app.api.repository import ApiRepository
from hippograph.app.api.settings import ApiSettings
from hippograph.consolidation import SleepConsolidator
from hippograph.memory import Memory

if TYPE_CHECKING:
    from hippograph.app.api.nightly import NightlyRunner
    from hippograph.app.settings import Settings


@dataclass
class ApiServices:
    memory: Memory
    consolidator: SleepConsolidator
    agent: Agent
    repo: ApiRepository
    settings: ApiSettings
    metrics: ApiMetrics
    warming: asyncio.Task[object] | None = field(default=None)
    """The agent's warm-up (:meth:`Agent.warm`, which runs :meth:`Memory.warm`), started with the app: ``/readyz`` says
    ready only once it has finished."""
    app_settings: Settings | None = field(default=None)
    """The application's settings the server was started with (shown, secrets masked, to admins)."""
    nightly: NightlyRunner | None = field(default=None)
    """The nightly consolidation's runner, when the settings schedule one."""
