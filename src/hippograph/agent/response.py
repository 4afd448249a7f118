"""What :meth:`Agent.run` returns: the visible reply and everything the turn did."""

from __future__ import annotations

from pydantic import BaseModel, Field

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
from hippograph.llm.types import TokenUsage


class TurnTimings(BaseModel):
    """Where the turn's time went (milliseconds).

    Attributes:
        stages: Per stage (see :data:`~hippograph.agent.observability.STAGES`).
        total_ms: All stages.
        model_ms: Waiting for the model (every call of the turn).
        overhead_ms: The pipeline's own cost: every stage but the model and the tools.
    """

    stages: dict[str, float] = Field(default_factory=dict)
    total_ms: float = 0.0
    model_ms: float = 0.0
    overhead_ms: float = 0.0


class AgentResponse(BaseModel):
    """One finished turn.

    Attributes:
        text: The reply the user sees (memory block stripped; the safe reply if refused).
        session_id: The session the turn ran in (pass it back to continue the chat).
        usage: Token usage summed over every model call of the turn.
        events: Every event the turn streamed, in order.
        errors: Recoverable failures (recall, tools, background work reported so far).
    """

    text: str
    session_id: str
    scope_key: str
    model: str | None = None
    stop_reason: str | None = None
    thinking: str = ""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model_calls: int = 0
    timings: TurnTimings = Field(default_factory=TurnTimings)
    intent: IntentClassified | None = None
    activations: list[Activation] = Field(default_factory=list)
    tool_results: list[ToolResult] = Field(default_factory=list)
    fabrication: FabricationDetected | None = None
    memory: MemoryExtracted | None = None
    consolidation: ConsolidationScheduled | None = None
    errors: list[StageFailed] = Field(default_factory=list)
    events: list[AgentEvent] = Field(default_factory=list)
