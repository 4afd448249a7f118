"""The memory operations a model may ask for in its MEMORY_EXTRACT block.

One pydantic model per op, told apart by ``op``; each op belongs to one layer:

    upsert_node    → semantic     a fact or entity (label, content, properties, links)
    create_event   → episodic     something that happened
    set_trigger    → prospective  a condition to watch and the task to do then
    register_skill → procedural   a how-to (a draft unless auto-approve is configured)
    retract_node   → (any)        soft-delete a memory by id, with a reason
    resolve_trigger → prospective mark a trigger done (by id or prompt handle)
    snooze_trigger → prospective  keep a trigger from firing until a time
    correct_profile → semantic    record a correction of a ``SOUL:<name>`` profile key
                                  (applied by consolidation's soul_corrections phase)

Unknown keys are ignored (models add them); known keys are validated strictly. Names (labels,
keys, ids, targets) are trimmed of surrounding whitespace; text (content, conditions, tasks,
steps, reasons) is kept exactly as given, and text that must not be empty must not be blank.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    TypeAdapter,
    field_validator,
)

from hippograph.models import MAX_LABEL, MAX_TEXT, Importance, Layer, Relationship, check_id

MAX_STEPS = 50
MAX_RELATIONSHIPS = 20


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_LABEL)]
"""A label, key, name or id: trimmed, never empty."""
OptionalLabel = Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_LABEL)]
"""A label that may be empty (derived from the text then): trimmed."""
Text = Annotated[str, Field(max_length=MAX_TEXT)]
"""Free text, stored exactly as given (whitespace, newlines, Unicode)."""
RequiredText = Annotated[str, Field(min_length=1, max_length=MAX_TEXT), AfterValidator(_not_blank)]
"""Free text that must say something: stored as given, refused when blank."""


class _Op(BaseModel):
    model_config = ConfigDict(extra="ignore")

    layer: ClassVar[Layer | None] = None


class RelationshipSpec(BaseModel):
    """A link from the upserted node to another memory, named by label or id."""

    model_config = ConfigDict(extra="ignore")

    target: Name
    type: Relationship = Relationship.RELATES_TO
    weight: float = Field(default=1.0, gt=0, le=10)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> Relationship:
        if isinstance(value, str):
            value = value.strip().upper()
        return Relationship.parse(value, "type")


class UpsertNode(_Op):
    """A semantic fact or entity; merged with an existing one of the same label."""

    layer: ClassVar[Layer | None] = Layer.SEMANTIC

    op: Literal["upsert_node"]
    label: Name
    content: Text = ""
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    importance: Importance = 5.0
    relationships: list[RelationshipSpec] = Field(default_factory=list, max_length=MAX_RELATIONSHIPS)
    key: Annotated[str, StringConstraints(strip_whitespace=True)] | None = None
    """A stable subject key: a new fact with the same key supersedes the current one."""


class CreateEvent(_Op):
    """An episodic event; ``mentions`` names facts (labels) it is about."""

    layer: ClassVar[Layer | None] = Layer.EPISODIC

    op: Literal["create_event"]
    content: RequiredText
    label: OptionalLabel = ""
    occurred_at: float | None = None
    importance: Importance = 5.0
    properties: dict[str, JsonValue] = Field(default_factory=dict)
    mentions: list[Annotated[str, StringConstraints(strip_whitespace=True)]] = Field(
        default_factory=list, max_length=MAX_RELATIONSHIPS
    )
    session_id: Annotated[str, StringConstraints(strip_whitespace=True)] | None = None
    """The conversation the event belongs to (chains its events)."""


class SetTrigger(_Op):
    """A prospective memory: when ``condition`` holds, do ``task``."""

    layer: ClassVar[Layer | None] = Layer.PROSPECTIVE

    op: Literal["set_trigger"]
    condition: RequiredText
    task: RequiredText
    due_at: float | None = None
    """When a time trigger is due: epoch seconds or an ISO 8601 date/time (UTC if no zone)."""
    about: list[Name] = Field(default_factory=list, max_length=MAX_RELATIONSHIPS)
    """Topics, keywords or people whose mention makes the condition hold (default: the
    condition's own names and content words)."""
    importance: Importance = 5.0

    @field_validator("due_at", mode="before")
    @classmethod
    def _due_at(cls, value: Any) -> Any:
        return epoch_seconds(value)


class ResolveTrigger(_Op):
    """Mark the trigger ``id`` (its id or the handle the prompt showed) done."""

    layer: ClassVar[Layer | None] = Layer.PROSPECTIVE

    op: Literal["resolve_trigger"]
    id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    outcome: Text = ""


class SnoozeTrigger(_Op):
    """Keep the trigger ``id`` from firing until ``until`` (epoch seconds or ISO 8601)."""

    layer: ClassVar[Layer | None] = Layer.PROSPECTIVE

    op: Literal["snooze_trigger"]
    id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    until: float

    @field_validator("until", mode="before")
    @classmethod
    def _until(cls, value: Any) -> Any:
        return epoch_seconds(value)


class CorrectProfile(_Op):
    """A correction of one key of the ``SOUL:<name>`` profile (how the agent should be, what
    to call the user…); consolidation applies it when the profile schema allows the key."""

    layer: ClassVar[Layer | None] = Layer.SEMANTIC

    op: Literal["correct_profile"]
    name: Name
    key: Name
    value: JsonValue
    reason: Text = ""


class RegisterSkill(_Op):
    """A procedural skill: ordered steps and the context it applies in."""

    layer: ClassVar[Layer | None] = Layer.PROCEDURAL

    op: Literal["register_skill"]
    name: Name
    steps: list[RequiredText] = Field(min_length=1, max_length=MAX_STEPS)
    context: Text = ""
    importance: Importance = 5.0
    properties: dict[str, JsonValue] = Field(default_factory=dict)


class RetractNode(_Op):
    """Soft-delete the memory ``id`` (it stays readable in audits)."""

    op: Literal["retract_node"]
    id: Annotated[str, StringConstraints(strip_whitespace=True)]
    reason: RequiredText

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_id(value)


MemoryOp = Annotated[
    UpsertNode
    | CreateEvent
    | SetTrigger
    | RegisterSkill
    | RetractNode
    | ResolveTrigger
    | SnoozeTrigger
    | CorrectProfile,
    Field(discriminator="op"),
]
"""Any memory operation, discriminated by ``op``."""

OP_NAMES: tuple[str, ...] = (
    "upsert_node",
    "create_event",
    "set_trigger",
    "register_skill",
    "retract_node",
    "resolve_trigger",
    "snooze_trigger",
    "correct_profile",
)

MEMORY_OP_ADAPTER: TypeAdapter[MemoryOp] = TypeAdapter(MemoryOp)


def epoch_seconds(value: Any) -> Any:
    """An ISO 8601 date or date-time (UTC when it names no zone) as epoch seconds; anything
    else unchanged, for the field's own validation."""
    if not isinstance(value, str):
        return value
    try:
        at = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError("must be epoch seconds or an ISO 8601 date/time") from None
    return (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
