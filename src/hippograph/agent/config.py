"""Agent settings: every stage of the turn can be switched and tuned here.

Defaults: triage off, full prompt, 2,000-token memory context of
the top 5 memories, fabrication check off (opt-in), extraction on, skills stored as drafts,
thinking kept 24 h (≤ 500 characters), 10,000 sessions per tenant with the oldest 10 %
evicted. Quick naps run in the background every ``ConsolidationConfig.turns_between_naps``
turns of a scope (the consolidator's own counter: 10 by default; 0 there means never).

The library never reads the environment: build an :class:`AgentConfig` at the application
edge (``AgentConfig.model_validate(settings_dict)`` works for nested dicts too).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hippograph.agent.findings import (
    DEFAULT_REFUSE_MIN_CONFIDENCE,
    DEFAULT_SAFE_REPLY,
    FabricationMode,
)
from hippograph.agent.intent import DEFAULT_ALWAYS_INCLUDE_TOOLS, Intent, TriageConfig, TriageMode
from hippograph.agent.mcp_settings import McpServerSettings
from hippograph.agent.prompts import DEFAULT_AGENT_NAME
from hippograph.layers.metacognition import GateMode
from hippograph.llm.types import MIN_THINKING_BUDGET
from hippograph.memory.capability import RecordPolicy
from hippograph.models import Layer

__all__ = [
    "AgentConfig",
    "ConsolidationSettings",
    "ExtractionSettings",
    "FabricationSettings",
    "HydrateSettings",
    "PersonaSettings",
    "PromptMode",
    "SessionSettings",
    "SummaryMode",
    "ToolLoopSettings",
    "TriageSettings",
]

PromptMode = Literal["full", "jit"]
SummaryMode = Literal["off", "extractive", "llm"]
"""How older turns are summarised: not at all, first and last sentences, or by the model."""
DAY = 86_400.0


class _Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TriageSettings(_Settings):
    """Intent classification and tool routing (both off by default)."""

    intent_mode: TriageMode = TriageMode.OFF
    tool_routing_mode: TriageMode = TriageMode.OFF
    always_include_tools: tuple[str, ...] = DEFAULT_ALWAYS_INCLUDE_TOOLS
    tool_intents: dict[str, Intent] = Field(default_factory=dict)

    def as_triage_config(self) -> TriageConfig:
        """The settings in the classifier's own terms."""
        return TriageConfig(
            intent_mode=self.intent_mode,
            tool_routing_mode=self.tool_routing_mode,
            always_include_tools=self.always_include_tools,
            tool_intents=dict(self.tool_intents),
        )


class HydrateSettings(_Settings):
    """Recall into the prompt (full mode) or through the ``hydrate_context`` tool (JIT)."""

    enabled: bool = True
    token_budget: int = Field(default=2000, ge=50)
    top_k: int = Field(default=5, ge=1, le=100)
    include_working: bool = True
    """The last turns of working memory, verbatim (by default the last 2)."""
    include_triggers: bool = True
    """Pending prospective triggers of the scope, when the verdict's layers include them."""
    max_triggers: int = Field(default=5, ge=0, le=50)
    max_query_chars: int = Field(default=2000, ge=16, le=4000)
    """The recall query is the user's message cut to this length."""
    max_activation_nodes: int = Field(default=50, ge=0, le=1000)
    """Most nodes listed in one Activation event."""
    working_summary: SummaryMode = "off"
    """Working memory's older entries (before the last 2) as one summary line: ``off`` (the
    default), ``extractive`` or ``llm`` (the agent's model)."""
    enabled_layers: tuple[Layer, ...] = tuple(Layer)
    """The layers a turn may recall from (all five by default); the triage verdict narrows
    them further, never widens them. Without ``working`` no recent turns are shown."""
    working_memory_raw_turns: int = Field(default=2, ge=0, le=50)
    """Working-memory entries (the session's last turns) shown verbatim in the context; 0
    shows none."""


class PersonaSettings(_Settings):
    """The persona: ``AGENT_IDENTITY`` seeded once per scope, shown with the scope's
    ``SOUL:<name>`` profiles in the prompt."""

    enabled: bool = True
    seed_identity: bool = True
    seed_at: Literal["root", "scope"] = "scope"
    """Seed the identity at the turn's own scope (a turn writes nowhere else: the isolation
    promise), or, opted in, at the root of the turn's scope (the tenant: every scope below sees
    it, so a user's first turn writes into the org)."""
    identity: str | None = Field(default=None, min_length=1, max_length=2000)
    """The identity text; None: "I am <agent_name>. <agent_description>"."""


class ToolLoopSettings(_Settings):
    """The model ↔ tools loop."""

    max_rounds: int = Field(default=4, ge=0, le=32)
    """Most rounds of tool calls in one turn; a call beyond them is refused and reported."""
    timeout: float = Field(default=30.0, gt=0)
    """Seconds one tool call may take before its result is an error."""
    max_result_chars: int = Field(default=20_000, ge=100)


class FabricationSettings(_Settings):
    """The fabrication check (off by default: the check is opt-in).

    With ``revise`` or ``refuse`` the reply's text is held back until it is checked, so it
    arrives in one piece after the model finishes instead of streaming token by token.
    """

    mode: FabricationMode = FabricationMode.OFF
    refuse_min_confidence: float = Field(default=DEFAULT_REFUSE_MIN_CONFIDENCE, ge=0, le=1)
    safe_reply: str = Field(default=DEFAULT_SAFE_REPLY, min_length=1)


class ExtractionSettings(_Settings):
    """MEMORY_EXTRACT extraction. The block is always stripped from the visible reply; when
    disabled, its ops are ignored."""

    enabled: bool = True
    max_ops: int = Field(default=50, ge=0, le=500)


class ConsolidationSettings(_Settings):
    """Background consolidation after the reply."""

    enabled: bool = True
    apply_ops: bool = True
    auto_approve_skills: bool = False
    """Skills the model registers become active at once (by default: drafts for review)."""
    skill_gate: GateMode = GateMode.OFF
    """The opt-in metacognitive gate: ``flag`` (kept as a draft, with the reason) or
    ``refuse`` a registered skill that contradicts the scope's core preferences."""
    store_thinking: bool = True
    thinking_ttl: float = Field(default=DAY, gt=0)
    store_turn_working: bool = True
    store_turn_episodic: bool = True
    store_actions: bool = True
    """The agent's tool calls of a turn as an episodic ``action`` event (phase 12 learns
    draft skills from recurring ones)."""
    quick_naps: bool = True
    """Run the consolidator's quick nap when its per-scope turn counter says one is due
    (every ``ConsolidationConfig.turns_between_naps`` turns of a scope, 10 by default); False:
    never."""

    def record_policy(self) -> RecordPolicy:
        """What the memory capability's ``record`` stores, in its own terms."""
        return RecordPolicy(
            store_turn_episodic=self.store_turn_episodic,
            apply_ops=self.apply_ops,
            auto_approve_skills=self.auto_approve_skills,
            skill_gate=self.skill_gate,
            store_thinking=self.store_thinking,
            thinking_ttl=self.thinking_ttl,
            store_turn_working=self.store_turn_working,
            store_actions=self.store_actions,
        )


class SessionSettings(_Settings):
    """Chats per tenant and what a chat remembers verbatim."""

    max_per_tenant: int = Field(default=10_000, ge=1)
    """Sessions held in memory per tenant (root scope); past it the tenant's own least recently
    used are evicted, never another tenant's."""
    max_total: int = Field(default=50_000, ge=1)
    """Sessions held in memory over all tenants; past it the tenant holding the most gives up
    its least recently used (a small tenant is never evicted by a big one)."""
    evict_fraction: float = Field(default=0.1, gt=0, le=1)
    history_turns: int = Field(default=10, ge=0, le=200)
    """Most earlier turns of the session sent to the model as messages (0: none)."""
    history_tokens: int = Field(default=4_000, ge=0)
    """Most tokens of the earlier turns sent as messages, by the chars/4 estimate the context
    budget uses: past it the oldest turns leave the messages (as past ``history_turns``)."""
    resume_from_graph: bool = True
    """An unknown session id is resumed from the episodic chain of that session, with its
    compacted summary (kept on its newest turn event)."""
    compaction: SummaryMode = "off"
    """A long session's turns beyond ``history_tokens`` (or ``history_turns``) are folded into
    a running summary sent before the kept turns: ``extractive`` or ``llm`` (the agent's
    model); ``off`` drops them (the default). The summary is kept in the graph with the
    session's turns, so a session resumed in another process has it."""


class TriggerSettings(_Settings):
    """When a condition trigger fires, and how often a fired trigger is shown."""

    match_by_meaning: bool = True
    """A condition also holds when the message means it: the cosine similarity of the
    message's embedding to the condition's topic (the memory's embedder) reaches
    ``meaning_threshold``. Off: by words only."""
    meaning_threshold: float = Field(default=0.3, ge=-1.0, le=1.0)
    """The cosine similarity at which a condition holds by meaning. 0.3 suits MiniLM (the
    default embedder): in our checks messages that mean a condition scored 0.31–0.54 against
    it, unrelated ones and greetings at most 0.25. Another embedder needs its own value; the
    hashing embedder of the tests measures shared words, not meaning."""
    once_per_session: bool = True
    """A fired trigger is shown as fired once per session: a due trigger again only when a
    turn names its condition or its time changes (a snooze that ended, a new due time), a
    condition trigger on each new matching turn. Off: a due trigger is shown as fired on
    every turn until it is resolved or snoozed."""


class AgentConfig(_Settings):
    """Everything an :class:`~hippograph.agent.Agent` can be told.

    Attributes:
        agent_name: How the agent calls itself in the prompt.
        agent_description: One or two sentences on its domain and role.
        model: The model name; None for the provider's default.
        max_tokens: Output tokens per model call.
        thinking_budget: Extended-thinking budget (≥ 1024, < max_tokens); None disables it.
        prompt_mode: ``full`` (memory in the system prompt) or ``jit`` (a short prompt and
            the ``hydrate_context`` tool the model calls when it needs memory).
        cache_system_prompt: Ask the provider to cache the stable instructions.
        stream_model: Use the provider's streaming call; False makes one complete call per
            model round and replays the reply as the same events (one delta per block).
        model_call_events: Announce each model call with ``ModelStart`` / ``ModelPreCall``.
    """

    agent_name: str = Field(default=DEFAULT_AGENT_NAME, min_length=1, max_length=100)
    agent_description: str = Field(default="", max_length=2000)
    model: str | None = None
    max_tokens: int = Field(default=4096, ge=1)
    thinking_budget: int | None = Field(default=None, ge=MIN_THINKING_BUDGET)
    prompt_mode: PromptMode = "full"
    cache_system_prompt: bool = True
    stream_model: bool = True
    model_call_events: bool = False
    """Announce each model call in the turn's stream with ``ModelStart`` and ``ModelPreCall``
    (model, sizes, the system prompt's digest, an input-token estimate). Off by default, so a
    turn's stream starts each call with ``MessageStart`` as before."""
    triage: TriageSettings = TriageSettings()
    hydrate: HydrateSettings = HydrateSettings()
    tools: ToolLoopSettings = ToolLoopSettings()
    fabrication: FabricationSettings = FabricationSettings()
    extraction: ExtractionSettings = ExtractionSettings()
    consolidation: ConsolidationSettings = ConsolidationSettings()
    sessions: SessionSettings = SessionSettings()
    persona: PersonaSettings = PersonaSettings()
    mcp_servers: tuple[McpServerSettings, ...] = ()
    """External MCP servers whose tools the model is offered (as ``mcp__<server>__<tool>``), one
    pooled session each (see :mod:`hippograph.agent.mcp_client`)."""
    triggers: TriggerSettings = TriggerSettings()

    @model_validator(mode="after")
    def _thinking_below_max(self) -> AgentConfig:
        if self.thinking_budget is not None and self.thinking_budget >= self.max_tokens:
            raise ValueError("thinking_budget must be less than max_tokens")
        return self
