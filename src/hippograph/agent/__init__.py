"""The agent turn: triage, hydrate, model, fabrication check, extraction, consolidation.

Example (offline; swap the model for ``AnthropicModel(api_key=...)`` to talk to Claude)::

    from hippograph.agent import Agent, AgentConfig, demo_model
    from hippograph.memory import Memory
    from hippograph.scope import Scope

    async with await Memory.connect(uri, password=password) as memory:
        agent = Agent(memory, demo_model(), AgentConfig(agent_name="Ada"))
        alice = Scope.root("org", "acme").child("user", "alice")
        first = await agent.run(alice, "My dog is called Rex.")
        await agent.drain()  # background consolidation has stored the fact
        async for event in agent.stream(alice, "What is my dog called?"):
            if event.type == "text_delta":
                print(event.text, end="")

Events are in :mod:`hippograph.agent.events`; each stage of a turn is one function of the
module of its concern (the table is in :mod:`hippograph.agent.stages`, the names in
:class:`Stage`); the checks in those modules (``triage``, ``fabrication``, ``extraction``,
``prompts``) can be used on their own.
"""

from hippograph.agent.agent import Agent
from hippograph.agent.background import BackgroundReport
from hippograph.agent.budget import (
    BudgetExceededError,
    CallRecord,
    CallRecords,
    InMemoryTokenLedger,
    TokenBudget,
    TokenLedger,
)
from hippograph.agent.config import (
    AgentConfig,
    ConsolidationSettings,
    ExtractionSettings,
    FabricationSettings,
    HydrateSettings,
    SessionSettings,
    ToolLoopSettings,
    TriageSettings,
    TriggerSettings,
)
from hippograph.agent.demo import demo_extractor, demo_model
from hippograph.agent.extractors import ModelExtractor, claude_extractor
from hippograph.agent.mcp_client import McpServerStatus, McpTools
from hippograph.agent.mcp_settings import McpServerSettings
from hippograph.agent.observability import AgentHooks, AgentHooksBase, RecordingHooks
from hippograph.agent.prompts.sections import PromptSection, PromptSections, SectionInput
from hippograph.agent.response import AgentResponse, TurnTimings
from hippograph.agent.sessions import Session, SessionManager
from hippograph.agent.stages import Stage
from hippograph.agent.telemetry import JsonLinesTelemetry, TelemetrySink, TurnSummary
from hippograph.agent.tool_capabilities import MemoryTools, ToolCapability, Tools
from hippograph.agent.tools import AgentTool

__all__ = [
    "Agent",
    "AgentConfig",
    "AgentHooks",
    "AgentHooksBase",
    "AgentResponse",
    "AgentTool",
    "BackgroundReport",
    "BudgetExceededError",
    "CallRecord",
    "CallRecords",
    "ConsolidationSettings",
    "ExtractionSettings",
    "FabricationSettings",
    "HydrateSettings",
    "InMemoryTokenLedger",
    "JsonLinesTelemetry",
    "McpServerSettings",
    "McpServerStatus",
    "McpTools",
    "MemoryTools",
    "ModelExtractor",
    "PromptSection",
    "PromptSections",
    "RecordingHooks",
    "SectionInput",
    "Session",
    "SessionManager",
    "SessionSettings",
    "Stage",
    "TelemetrySink",
    "TokenBudget",
    "TokenLedger",
    "ToolCapability",
    "ToolLoopSettings",
    "Tools",
    "TriageSettings",
    "TriggerSettings",
    "TurnSummary",
    "TurnTimings",
    "claude_extractor",
    "demo_extractor",
    "demo_model",
]
