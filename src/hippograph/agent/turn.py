"""What one turn has streamed so far: the turn's own errors, usage and timings, and the
:class:`AgentResponse` built from them. The stages never read it; the agent feeds it every
event it yields and the record stage takes the turn's numbers from it."""

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
from hippograph.agent.observability import StageClock
from hippograph.agent.response import AgentResponse, TurnTimings
from hippograph.agent.telemetry import TurnStats
from hippograph.llm.events import MessageEnd, MessageStart, ThinkingDelta, Usage
from hippograph.llm.types import TokenUsage
from hippograph.retrieval.bookkeeping import HeldBookkeeping
from hippograph.scope import Scope


@dataclass
class TurnLog:
    """One turn's account of itself, from the events it streamed."""

    scope: Scope
    message: str
    session_id: str | None
    """The session asked for; once opened, the session's own id."""
    clock: StageClock
    usage: TokenUsage = field(default_factory=TokenUsage)
    model_name: str | None = None
    stop_reason: str | None = None
    message_id: str = ""
    thinking: list[str] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    activations: list[Activation] = field(default_factory=list)
    errors: list[StageFailed] = field(default_factory=list)
    intent: IntentClassified | None = None
    fabrication: FabricationDetected | None = None
    memory: MemoryExtracted | None = None
    consolidation: ConsolidationScheduled | None = None
    model_calls: int = 0
    reply: str = ""
    fatal: Exception | None = None
    bookkeeping: HeldBookkeeping = field(default_factory=HeldBookkeeping)
    """The bookkeeping of the turn's recalls before the model (access counts, pending links),
    started once the model has answered, or when the turn ends however it ends."""

    def observe(self, event: AgentEvent) -> None:
        """Take note of an event the turn streamed."""
        if isinstance(event, Usage):
            self.usage = self.usage.plus(event.totals())
        elif isinstance(event, MessageStart):
            self.model_name, self.message_id = event.model, event.message_id
        elif isinstance(event, MessageEnd):
            self.stop_reason = event.stop_reason
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

    def shown(self) -> list[str]:
        """The ids of the memories the model was shown in this turn (its recalls' context), in order."""
        ids: list[str] = []
        for activation in self.activations:
            shown = activation.details.get("in_context")
            if isinstance(shown, list):
                ids.extend(i for i in shown if isinstance(i, str))
        return list(dict.fromkeys(ids))

    def stats(self, *, reply: str, tools: list[str], ops: int) -> TurnStats:
        """The turn's numbers so far (for the telemetry sink): no text, only sizes and names."""
        return TurnStats(
            model=self.model_name, stop_reason=self.stop_reason, model_calls=self.model_calls, usage=self.usage,
            stages_ms={k: round(v, 3) for k, v in self.clock.stages.items()}, tools=tools,
            message_chars=len(self.message), reply_chars=len(reply), ops=ops,
            stage_failures=[e.stage for e in self.errors],
        )  # fmt: skip

    def response(self, events: list[AgentEvent]) -> AgentResponse:
        """The finished turn as a response."""
        stages = {k: round(v, 3) for k, v in self.clock.stages.items()}
        return AgentResponse(
            text=self.reply,
            session_id=self.session_id or "",
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
