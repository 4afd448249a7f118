"""What the stages of a turn use, built once per agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.agent.background import BackgroundConsolidation
from hippograph.agent.capabilities import ToolCapability
from hippograph.agent.config import AgentConfig
from hippograph.agent.fabrication import FabricationChecker
from hippograph.agent.hydrate import Hydrator
from hippograph.agent.observability import HookSet
from hippograph.agent.prompt_sections import PromptSections
from hippograph.agent.reminders import PersonaSeeder
from hippograph.agent.sessions import SessionManager
from hippograph.agent.summaries import TurnSummarizer
from hippograph.agent.triage import IntentClassifier, TriageConfig
from hippograph.llm.provider import ModelProvider

if TYPE_CHECKING:
    from hippograph.consolidation import SleepConsolidator
    from hippograph.layers import MemoryOrchestrator


@dataclass(frozen=True)
class StageDeps:
    """The agent's long-lived parts, shared by every turn (read-only to the stages)."""

    config: AgentConfig
    memory: MemoryOrchestrator
    model: ModelProvider
    consolidator: SleepConsolidator | None
    hooks: HookSet
    capabilities: tuple[ToolCapability, ...]
    """What brings the tools of a turn (``Agent(tools=...)`` is the first, as ``Tools``)."""
    hydrator: Hydrator
    classifier: IntentClassifier
    triage: TriageConfig
    checker: FabricationChecker
    sessions: SessionManager
    background: BackgroundConsolidation
    persona: PersonaSeeder
    summarizer: TurnSummarizer
    sections: PromptSections | None = None
    """The host's plugin prompt sections (None: none)."""
