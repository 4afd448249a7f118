"""What the lifespan builds once and every request uses: the memory, the consolidator, the
agent, the API repository, settings and metrics."""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.agent import Agent
from hippograph.app.api.metrics import ApiMetrics
from hippograph.app.api.repository import ApiRepository
from hippograph.app.api.settings import ApiSettings
from hippograph.consolidation import SleepConsolidator
from hippograph.layers import MemoryOrchestrator


@dataclass
class ApiServices:
    memory: MemoryOrchestrator
    consolidator: SleepConsolidator
    agent: Agent
    repo: ApiRepository
    settings: ApiSettings
    metrics: ApiMetrics
