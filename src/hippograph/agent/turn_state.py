"""The state of one agent turn while it runs, and the response built from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from hippograph.agent.events import (
    Activation,
    AgentEvent,
    ConsolidationScheduled,
    FabricationDetected,
    IntentClassified,
    MemoryExtracted,
    StageFailed,
    ToolResult,
)
from hippograph.agent.extraction import ExtractionResult
from hippograph.agent.observability import StageClock
from hippograph.agent.response import AgentResponse, TurnTimings
from hippograph.agent.sessions import Session
from hippograph.agent.stages import Stage
from hippograph.agent.tools import AgentTool
from hippograph.agent.triage import TriageDecision
from hippograph.errors import HippographError
from hippograph.layers.episodic import ActionCall
from hippograph.llm.events import MessageEnd, MessageStart, TextDelta, ThinkingDelta, Usage
from hippograph.llm.types import ChatMessage, ModelResponse, SystemPrompt, TokenUsage, ToolSpec
from hippograph.ops import MemoryOp
from hippograph.scope import Scope


class TurnOrderError(HippographError, RuntimeError):
    """A stage needed what an earlier stage should have left in the turn state: the stages
    were composed in the wrong order (a bug in the composition, never the caller's input)."""

    def __init__(self, needed: str) -> None:
        super().__init__(f"the turn has no {needed} yet: a stage ran out of order")


@dataclass
class TurnState:
    """The state of one turn while it runs."""

    scope: Scope
    message: str
    session_id: str | None
    clock: StageClock
    session: Session | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    model_calls: int = 0
    model_name: str | None = None
    stop_reason: str | None = None
    message_id: str = ""
    open_message: bool = False
    thinking: list[str] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    tools: dict[str, AgentTool] = field(default_factory=dict)
    """The tools of the capabilities registered, for this turn's scope (set by triage)."""
    actions: list[ActionCall] = field(default_factory=list)
    """The agent's own tool calls, in order (not ``hydrate_context``): recorded as its action."""
    activations: list[Activation] = field(default_factory=list)
    memory_texts: list[str] = field(default_factory=list)
    raw_texts: list[str] = field(default_factory=list)
    errors: list[StageFailed] = field(default_factory=list)
    intent: IntentClassified | None = None
    fabrication: FabricationDetected | None = None
    memory: MemoryExtracted | None = None
    consolidation: ConsolidationScheduled | None = None
    reply: str = ""
    fatal: BaseException | None = None
    stage: Stage = Stage.MODEL
    """Where a fatal failure is reported (the stage running)."""
    # set by triage and hydrate
    decision: TriageDecision | None = None
    jit: bool = False
    system: SystemPrompt | None = None
    messages: list[ChatMessage] = field(default_factory=list)
    # the model call in progress
    last: ModelResponse | None = None
    last_end: MessageEnd | None = None
    held: list[TextDelta] = field(default_factory=list)
    # after the last model round
    extraction: ExtractionResult | None = None
    refused: bool = False
    ops: list[MemoryOp] = field(default_factory=list)
    """The memory ops to apply (set by the extraction stage)."""

    def require_session(self) -> Session:
        """The session opened by the session stage."""
        if self.session is None:
            raise TurnOrderError("session")
        return self.session

    def require_decision(self) -> TriageDecision:
        """The triage stage's decision."""
        if self.decision is None:
            raise TurnOrderError("triage decision")
        return self.decision

    def require_system(self) -> SystemPrompt:
        """The system prompt built by the hydrate stage."""
        if self.system is None:
            raise TurnOrderError("system prompt")
        return self.system

    def require_last(self) -> ModelResponse:
        """The reply of the last model call."""
        if self.last is None:
            raise TurnOrderError("model response")
        return self.last

    def require_last_end(self) -> MessageEnd:
        """The MessageEnd of the last model call, held for the composition to place."""
        if self.last_end is None:
            raise TurnOrderError("message end")
        return self.last_end

    def require_extraction(self) -> ExtractionResult:
        """The reply's extraction (after the fabrication stage)."""
        if self.extraction is None:
            raise TurnOrderError("extraction")
        return self.extraction

    def tool_specs(self) -> list[ToolSpec]:
        """The tools triage kept for the model."""
        return self.require_decision().routing.tools

    def observe(self, event: AgentEvent) -> None:
        if isinstance(event, Usage):
            self.usage = self.usage.plus(event.totals())
        elif isinstance(event, MessageStart):
            self.model_name, self.message_id, self.open_message = (
                event.model,
                event.message_id,
                True,
            )
        elif isinstance(event, MessageEnd):
            self.stop_reason, self.open_message = event.stop_reason, False
        elif isinstance(event, ThinkingDelta):
            self.thinking.append(event.text)
        elif isinstance(event, ToolResult):
            self.tool_results.append(event)
        elif isinstance(event, Activation):
            self.activations.append(event)
        elif isinstance(event, StageFailed):
            self.errors.append(event)
        elif isinstance(event, IntentClassified):
            self.intent = event
        elif isinstance(event, FabricationDetected):
            self.fabrication = event
        elif isinstance(event, MemoryExtracted):
            self.memory = event
        elif isinstance(event, ConsolidationScheduled):
            self.consolidation = event

    def response(self, events: list[AgentEvent]) -> AgentResponse:
        stages = {k: round(v, 3) for k, v in self.clock.stages.items()}
        return AgentResponse(
            text=self.reply,
            session_id=self.session.id if self.session else (self.session_id or ""),
            scope_key=self.scope.key,
            model=self.model_name,
            stop_reason=self.stop_reason,
            thinking="".join(self.thinking),
            usage=self.usage,
            model_calls=self.model_calls,
            timings=TurnTimings(
                stages=stages,
                total_ms=round(self.clock.total_ms, 3),
                model_ms=round(self.clock.stages.get("model", 0.0), 3),
                overhead_ms=round(self.clock.overhead_ms, 3),
            ),
            intent=self.intent,
            activations=self.activations,
            tool_results=self.tool_results,
            fabrication=self.fabrication,
            memory=self.memory,
            consolidation=self.consolidation,
            errors=self.errors,
            events=events,
        )
