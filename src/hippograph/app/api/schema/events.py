"""The agent's typed events as GraphQL types, mapped by their ``type`` discriminator (an event
type this API does not know yet arrives as :class:`OtherEvent`, never dropped)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON


@strawberry.type
class MessageStartEvent:
    message_id: str
    model: str


@strawberry.type
class ThinkingDeltaEvent:
    index: int
    text: str


@strawberry.type
class ThinkingSignatureEvent:
    index: int
    signature: str


@strawberry.type
class TextDeltaEvent:
    index: int
    text: str


@strawberry.type
class ToolCallStartEvent:
    index: int
    id: str
    name: str


@strawberry.type
class ToolCallDeltaEvent:
    index: int
    id: str
    partial_json: str


@strawberry.type
class ToolResultEvent:
    tool_use_id: str
    name: str
    content: str
    is_error: bool


@strawberry.type
class UsageEvent:
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int


@strawberry.type
class ActivatedMemory:
    id: strawberry.ID
    score: float
    layer: str | None
    label: str | None
    hop: int
    details: JSON


@strawberry.type
class ActivationPath:
    node_ids: list[strawberry.ID]
    relationships: list[str]
    score: float | None


@strawberry.type
class ActivationEvent:
    nodes: list[ActivatedMemory]
    paths: list[ActivationPath]
    details: JSON


@strawberry.type
class InvalidOp:
    index: int
    reason: str


@strawberry.type
class MemoryExtractedEvent:
    ops: JSON
    invalid: list[InvalidOp]
    strategy: str | None
    reason: str | None


@strawberry.type
class ConsolidationScheduledEvent:
    op_count: int
    quick_nap: bool
    task_id: str | None


@strawberry.type
class FabricationFinding:
    kind: str
    text: str
    confidence: float


@strawberry.type
class FabricationDetectedEvent:
    mode: str
    action: str
    findings: list[FabricationFinding]


@strawberry.type(
    description="The fabrication policy refused the draft: the user is shown `reply` (the safe reply) "
    "instead, and the draft's memory ops are dropped."
)
class FabricationBlockedEvent:
    confidence: float = strawberry.field(description="The strongest finding's confidence.")
    min_confidence: float = strawberry.field(description="The policy's threshold.")
    findings: int
    dropped_ops: int
    reply: str


@strawberry.type
class IntentClassifiedEvent:
    verdict: str
    mode: str
    knowledge_score: float
    action_score: float
    matched: list[str]


@strawberry.type
class ToolRoutingDecisionEvent:
    verdict: str | None
    mode: str
    kept: list[str]
    dropped: list[str]


@strawberry.type
class MessageEndEvent:
    message_id: str
    stop_reason: str | None


@strawberry.type(description="A stage of the turn failed; recoverable turns still deliver the reply.")
class StageFailedEvent:
    stage: str
    error_type: str
    message: str
    recoverable: bool


@strawberry.type(description="A prospective trigger fired: it is due, or the message named its condition or meant it.")
class TriggerFiredEvent:
    id: strawberry.ID
    handle: str
    reason: str
    condition: str
    task: str
    due_at: float | None
    matched: list[str]
    similarity: float | None = strawberry.field(
        default=None, description="The message's similarity to the condition, when it held by meaning."
    )


@strawberry.type(description="An event type this API version does not describe yet.")
class OtherEvent:
    type: str
    data: JSON


@strawberry.type(description="The scope has spent its model tokens for today.")
class BudgetExceeded:
    scope_key: str
    used: int
    budget: int
    retry_after: int


TurnEvent = Annotated[
    MessageStartEvent
    | ThinkingDeltaEvent
    | ThinkingSignatureEvent
    | TextDeltaEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolResultEvent
    | UsageEvent
    | ActivationEvent
    | MemoryExtractedEvent
    | ConsolidationScheduledEvent
    | FabricationDetectedEvent
    | FabricationBlockedEvent
    | IntentClassifiedEvent
    | ToolRoutingDecisionEvent
    | MessageEndEvent
    | StageFailedEvent
    | TriggerFiredEvent
    | OtherEvent
    | BudgetExceeded,
    strawberry.union("TurnEvent"),
]


def _activation(d: dict[str, Any]) -> ActivationEvent:
    return ActivationEvent(
        nodes=[
            ActivatedMemory(
                id=strawberry.ID(n["id"]),
                score=n["score"],
                layer=n.get("layer"),
                label=n.get("label"),
                hop=n.get("hop", 0),
                details=JSON(n.get("details") or {}),
            )
            for n in d.get("nodes", [])
        ],
        paths=[
            ActivationPath(
                node_ids=[strawberry.ID(i) for i in p["node_ids"]],
                relationships=list(p.get("relationships", [])),
                score=p.get("score"),
            )
            for p in d.get("paths", [])
        ],
        details=JSON(d.get("details") or {}),
    )


def _plain(cls: Any, d: dict[str, Any]) -> Any:
    names = {f.python_name for f in cls.__strawberry_definition__.fields}
    return cls(**{k: v for k, v in d.items() if k in names})


_PLAIN: dict[str, Any] = {
    "message_start": MessageStartEvent,
    "thinking_delta": ThinkingDeltaEvent,
    "thinking_signature": ThinkingSignatureEvent,
    "text_delta": TextDeltaEvent,
    "tool_call_start": ToolCallStartEvent,
    "tool_call_delta": ToolCallDeltaEvent,
    "tool_result": ToolResultEvent,
    "usage": UsageEvent,
    "consolidation_scheduled": ConsolidationScheduledEvent,
    "fabrication_blocked": FabricationBlockedEvent,
    "intent_classified": IntentClassifiedEvent,
    "tool_routing_decision": ToolRoutingDecisionEvent,
    "message_end": MessageEndEvent,
    "stage_failed": StageFailedEvent,
    "trigger_fired": TriggerFiredEvent,
}


def to_graphql(event: Any) -> Any:
    """The GraphQL value of one agent event."""
    data: dict[str, Any] = event.model_dump(mode="json")
    kind = str(data.get("type", ""))
    try:
        if kind == "activation":
            return _activation(data)
        if kind == "memory_extracted":
            return MemoryExtractedEvent(
                ops=JSON(data.get("ops", [])),
                invalid=[InvalidOp(index=i["index"], reason=i["reason"]) for i in data.get("invalid", [])],
                strategy=data.get("strategy"),
                reason=data.get("reason"),
            )
        if kind == "fabrication_detected":
            return FabricationDetectedEvent(
                mode=data["mode"],
                action=data["action"],
                findings=[FabricationFinding(**f) for f in data.get("findings", [])],
            )
        if kind in _PLAIN:
            return _plain(_PLAIN[kind], data)
    except (KeyError, TypeError):
        pass
    return OtherEvent(type=kind, data=JSON({k: v for k, v in data.items() if k != "type"}))
