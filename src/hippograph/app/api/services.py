"""What the lifespan builds once and every request uses: the memory, the consolidator, the
agent, the API repository, settings and metrics."""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.agent import Agent
from hippograph.app.api.metrics import ApiMetrics
from hippograph.app.api.repository import ApiRepository
from hippograph.app.api.settings import ApiSettings
from hippograph.consolidation import SleepConsolidator
from hippograph.memory import Memory


@dataclass
class ApiServices:
    memory: Memory
    consolidator: SleepConsolidator
    agent: Agent
    repo: ApiRepository
    settings: ApiSettings
    metrics: ApiMetrics
