"""The typed event stream of one agent turn: one async iterator, streamed by the API as is.

Model events (:class:`MessageStart`, :class:`ThinkingDelta`, :class:`ThinkingSignature`,
:class:`TextDelta`, :class:`ToolCallStart`, :class:`ToolCallDelta`, :class:`Usage`,
:class:`MessageEnd`) are the provider's own classes, passed through unchanged; a turn
that calls tools holds one MessageStart … MessageEnd run per model call. The turn adds
its own events below. Every event has a ``type`` discriminator, so
``AGENT_EVENT_ADAPTER.validate_json(line)`` reads any of them back.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

from hippograph.llm.events import (
    MessageEnd,
    MessageStart,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from hippograph.ops import MemoryOp

if TYPE_CHECKING:
    from hippograph.agent.findings import FabricationReport
    from hippograph.agent.intent import IntentResult, ToolRouting, TriageMode
    from hippograph.agent.ops_block_result import ExtractionResult

__all__ = [
    "AGENT_EVENT_ADAPTER",
    "ActivatedNode",
    "Activation",
    "ActivationPath",
    "AgentEvent",
    "ConsolidationScheduled",
    "FabricationBlocked",
    "FabricationDetected",
    "FabricationFindingInfo",
    "IntentClassified",
    "InvalidOpInfo",
    "MemoryExtracted",
    "MessageEnd",
    "MessageStart",
    "ModelPreCall",
    "ModelStart",
    "StageFailed",
    "TextDelta",
    "ThinkingDelta",
    "ThinkingSignature",
    "ToolCallDelta",
    "ToolCallStart",
    "ToolResult",
    "ToolRoutingDecision",
    "TriggerFired",
    "Usage",
]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)


class ToolResult(_Event):
    """The result of a tool the agent ran for the model."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    name: str
    content: str
    is_error: bool = False


class ActivatedNode(BaseModel):
    """One memory reached by retrieval or spreading activation."""

    model_config = ConfigDict(frozen=True)

    id: str
    score: float
    layer: str | None = None
    label: str | None = None
    hop: int = Field(default=0, ge=0)
    details: dict[str, JsonValue] = Field(default_factory=dict)


class ActivationPath(BaseModel):
    """An inference path: seed → … → node, with the relationship types between."""

    model_config = ConfigDict(frozen=True)

    node_ids: list[str]
    relationships: list[str] = Field(default_factory=list)
    score: float | None = None


class Activation(_Event):
    """What hydration activated; ``details`` carries anything the retrieval adds."""

    type: Literal["activation"] = "activation"
    nodes: list[ActivatedNode] = Field(default_factory=list)
    paths: list[ActivationPath] = Field(default_factory=list)
    details: dict[str, JsonValue] = Field(default_factory=dict)


class InvalidOpInfo(BaseModel):
    """A memory op that was skipped, and why."""

    model_config = ConfigDict(frozen=True)

    index: int
    reason: str


class MemoryExtracted(_Event):
    """The reply's memory-ops block, validated; invalid ops are listed, not fatal."""

    type: Literal["memory_extracted"] = "memory_extracted"
    ops: list[MemoryOp] = Field(default_factory=list)
    invalid: list[InvalidOpInfo] = Field(default_factory=list)
    strategy: str | None = None
    reason: str | None = None

    @classmethod
    def from_result(cls, result: ExtractionResult) -> MemoryExtracted:
        """The event for an extraction result."""
        return cls(
            ops=list(result.ops),
            invalid=[InvalidOpInfo(index=i.index, reason=i.reason) for i in result.invalid],
            strategy=result.strategy.value if result.strategy else None,
            reason=result.reason,
        )


class ConsolidationScheduled(_Event):
    """Background consolidation of this turn was scheduled (the reply does not wait)."""

    type: Literal["consolidation_scheduled"] = "consolidation_scheduled"
    op_count: int = Field(ge=0)
    quick_nap: bool = False
    task_id: str | None = None


class FabricationFindingInfo(BaseModel):
    """One unsupported claim in the draft."""

    model_config = ConfigDict(frozen=True)

    kind: str
    text: str
    confidence: float = Field(ge=0.0, le=1.0)


class FabricationDetected(_Event):
    """The fabrication check found unsupported claims; ``action`` says what was done."""

    type: Literal["fabrication_detected"] = "fabrication_detected"
    mode: str
    action: Literal["observed", "revise", "refused"]
    findings: list[FabricationFindingInfo]

    @classmethod
    def from_report(cls, report: FabricationReport) -> FabricationDetected | None:
        """The event for a report; None when nothing was found (or the check is off)."""
        if report.action == "none":
            return None
        findings = [
            FabricationFindingInfo(kind=f.kind.value, text=f.text, confidence=f.confidence) for f in report.findings
        ]
        return cls(mode=report.mode.value, action=report.action, findings=findings)


class FabricationBlocked(_Event):
    """The fabrication policy refused the draft (mode ``refuse``, a finding at or above
    ``min_confidence``): the user is shown ``reply`` (the safe reply) instead, and the draft's
    memory ops are dropped. It follows the ``FabricationDetected`` event of the same draft."""

    type: Literal["fabrication_blocked"] = "fabrication_blocked"
    confidence: float = Field(ge=0.0, le=1.0)
    """The strongest finding's confidence."""
    min_confidence: float = Field(ge=0.0, le=1.0)
    """The policy's threshold (``FabricationSettings.refuse_min_confidence``)."""
    findings: int = Field(ge=0)
    dropped_ops: int = Field(ge=0)
    """Memory ops of the draft that are not applied."""
    reply: str
    """What the user is shown instead of the draft."""


class IntentClassified(_Event):
    """The triage verdict and the scores behind it."""

    type: Literal["intent_classified"] = "intent_classified"
    verdict: str
    mode: str
    knowledge_score: float
    action_score: float
    matched: list[str] = Field(default_factory=list)

    @classmethod
    def from_result(cls, result: IntentResult, mode: TriageMode) -> IntentClassified:
        """The event for a classifier verdict."""
        return cls(
            verdict=result.verdict.value,
            mode=mode.value,
            knowledge_score=result.knowledge_score,
            action_score=result.action_score,
            matched=[*result.matched_knowledge, *result.matched_action],
        )


class ToolRoutingDecision(_Event):
    """Which tools triage kept and dropped (dropped ones are still sent under observe)."""

    type: Literal["tool_routing_decision"] = "tool_routing_decision"
    verdict: str | None
    mode: str
    kept: list[str]
    dropped: list[str]

    @classmethod
    def from_routing(cls, routing: ToolRouting) -> ToolRoutingDecision:
        """The event for a routing decision."""
        return cls(
            verdict=routing.verdict.value if routing.verdict else None,
            mode=routing.mode.value,
            kept=list(routing.kept),
            dropped=list(routing.dropped),
        )


class TriggerFired(_Event):
    """A prospective trigger of the scope fired at hydration: it is due (``reason`` ``due``)
    or the message named its condition (``condition``, with the ``matched`` terms) or meant
    it (``similarity``: the message's similarity to the condition, when it held by meaning).
    It stays in the prompt until the model (or a person) resolves or snoozes it; a due one is
    shown as fired once per session unless it fires anew."""

    type: Literal["trigger_fired"] = "trigger_fired"
    id: str
    handle: str
    reason: Literal["due", "condition"]
    condition: str
    task: str
    due_at: float | None = None
    matched: list[str] = Field(default_factory=list)
    similarity: float | None = None


class StageFailed(_Event):
    """A stage of the turn (or of its background work) failed. With ``recoverable`` the
    turn goes on and the reply arrives; only a model failure is not recoverable.

    It is an event, not an exception: it reports a failure that was already handled.
    (Formerly ``Error`` with type ``"error"``; ``Error`` stays importable as a deprecated alias.)
    """

    type: Literal["stage_failed"] = "stage_failed"
    stage: str
    error_type: str
    message: str
    recoverable: bool = True

    @classmethod
    def from_exception(cls, stage: str, exc: BaseException, *, recoverable: bool = True) -> StageFailed:
        """The event for an exception raised by ``stage`` (message cut to 500 chars)."""
        return cls(
            stage=stage,
            error_type=type(exc).__name__,
            message=str(exc)[:500],
            recoverable=recoverable,
        )


class ModelStart(_Event):
    """A model call is about to start (the engine's view; opt-in: ``AgentConfig.model_call_events``)."""

    type: Literal["model_start"] = "model_start"
    call: int = Field(ge=1)
    """The turn's model call this is (1 for the first; tool rounds and a revision add one)."""
    model: str | None
    """The model asked for (None: the provider's default)."""
    purpose: Literal["reply", "revision"] = "reply"
    streamed: bool = True
    prompt_mode: str = "full"


class ModelPreCall(_Event):
    """What goes to the provider for this call (the wire's view, by size and digest — never
    the text; opt-in with :class:`ModelStart`)."""

    type: Literal["model_pre_call"] = "model_pre_call"
    call: int = Field(ge=1)
    model: str | None
    max_tokens: int
    thinking_budget: int | None = None
    system_chars: int = Field(ge=0)
    system_digest: str
    """sha256 of the system prompt's cached part: it changes when the cache key does."""
    context_chars: int = Field(ge=0)
    """The per-turn part of the system prompt (the memory context)."""
    messages: int = Field(ge=0)
    message_chars: int = Field(ge=0)
    tools: list[str] = Field(default_factory=list)
    estimated_input_tokens: int = Field(ge=0)
    """About four characters a token (the provider's count arrives in ``Usage``)."""


AgentEvent = Annotated[
    ModelStart
    | ModelPreCall
    | MessageStart
    | ThinkingDelta
    | ThinkingSignature
    | TextDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolResult
    | Usage
    | Activation
    | MemoryExtracted
    | ConsolidationScheduled
    | FabricationDetected
    | FabricationBlocked
    | IntentClassified
    | ToolRoutingDecision
    | TriggerFired
    | MessageEnd
    | StageFailed,
    Field(discriminator="type"),
]
"""Any event of an agent turn."""

AGENT_EVENT_ADAPTER: TypeAdapter[AgentEvent] = TypeAdapter(AgentEvent)


def __getattr__(name: str) -> type[StageFailed]:
    if name == "Error":
        warnings.warn(
            "hippograph.agent.events.Error is deprecated; use StageFailed (event type 'stage_failed')",
            DeprecationWarning,
            stacklevel=2,
        )
        return StageFailed
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
