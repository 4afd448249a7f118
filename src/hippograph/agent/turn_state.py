"""The state of one agent turn while it runs, and the response built from it."""

from __future__ import annotations

from dataclasses import dataclass, field

from hippograph.agent.events import (
    Activation,
    AgentEvent,
    ConsolidationScheduled,
    Error,
    FabricationDetected,
    IntentClassified,
    MemoryExtracted,
    ToolResult,
)
from hippograph.agent.observability import StageClock
from hippograph.agent.response import AgentResponse, TurnTimings
from hippograph.agent.sessions import Session
from hippograph.llm.events import MessageEnd, MessageStart, TextDelta, ThinkingDelta, Usage
from hippograph.llm.types import ModelResponse, TokenUsage
from hippograph.scope import Scope


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
    activations: list[Activation] = field(default_factory=list)
    memory_texts: list[str] = field(default_factory=list)
    raw_texts: list[str] = field(default_factory=list)
    errors: list[Error] = field(default_factory=list)
    intent: IntentClassified | None = None
    fabrication: FabricationDetected | None = None
    memory: MemoryExtracted | None = None
    consolidation: ConsolidationScheduled | None = None
    reply: str = ""
    fatal: BaseException | None = None
    stage: str = "model"
    # the model call in progress
    last: ModelResponse | None = None
    last_end: MessageEnd | None = None
    held: list[TextDelta] = field(default_factory=list)

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
        elif isinstance(event, Error):
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
