# mypy: disable-error-code="untyped-decorator"
"""Curated mutations (no generated CRUD). Expected failures are union members, not errors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from hippograph.app.access.keys import Role
from hippograph.app.access.limits import BudgetExceededError
from hippograph.app.api.schema.common import ctx, derived
from hippograph.app.api.schema.consolidation import ConsolidationReport
from hippograph.app.api.schema.events import (
    ActivationEvent,
    BudgetExceeded,
    MemoryExtractedEvent,
    StageFailedEvent,
    to_graphql,
)
from hippograph.app.api.schema.memories import AuditEntry, Layer, Memory
from hippograph.app.api.turns import run_turn
from hippograph.app.erase import erase_scope
from hippograph.errors import (
    AlreadyRunningError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    validation_errors,
)
from hippograph.memory.commit import AUTHORED_TRIGGER_IMPORTANCE
from hippograph.models import Layer as _Layer
from hippograph.models import MemoryNode, check_id
from hippograph.ops import (
    CreateEvent,
    MemoryOp,
    RegisterSkill,
    ResolveTrigger,
    RetractNode,
    SetTrigger,
    SnoozeTrigger,
    UpsertNode,
)
from hippograph.scope import Scope


@strawberry.type(description="The input was refused; nothing was written.")
class InputError:
    field: str
    message: str


@strawberry.type(description="No such memory within the scope (or out of reach).")
class NotFound:
    message: str


@strawberry.type
class MemoryPayload:
    memory: Memory


@strawberry.type
class TokenCounts:
    input_tokens: int
    output_tokens: int


@strawberry.type(description="One agent turn: the reply, what it extracted, what it activated.")
class TurnSuccess:
    reply: str
    session_id: str
    scope_key: str
    model: str | None
    stop_reason: str | None
    model_calls: int
    usage: TokenCounts
    activations: list[ActivationEvent]
    extracted: MemoryExtractedEvent | None
    errors: list[StageFailedEvent]
    timings: JSON


@strawberry.type
class RestoreSuccess:
    memory: Memory | None
    audit: AuditEntry


@strawberry.enum
class RestoreErrorCode(Enum):
    NOT_FOUND = "not_found"
    NOT_RESTORABLE = "not_restorable"


@strawberry.type(description="Not restored: no such retracted memory, or its grace period is over.")
class RestoreError:
    code: RestoreErrorCode
    message: str


@strawberry.type
class ConsolidationBusy:
    message: str


@strawberry.type
class ForgetSuccess:
    scope_key: str
    erased: int


@strawberry.type(description="Nothing erased: the confirmation did not repeat the scope key.")
class ForgetError:
    message: str


@strawberry.enum
class ConsolidationMode(Enum):
    QUICK = "quick"
    FULL = "full"


@strawberry.input(description="A memory to store; which fields count depends on the layer.")
class RememberInput:
    layer: Layer  # type: ignore[valid-type]
    label: str = ""
    content: str = ""
    key: str | None = strawberry.field(default=None, description="semantic: the fact's subject key.")
    importance: float | None = None
    properties: JSON | None = None
    steps: list[str] | None = strawberry.field(default=None, description="procedural: the skill's steps.")
    condition: str | None = strawberry.field(default=None, description="prospective: when it fires.")
    task: str | None = strawberry.field(default=None, description="prospective: what to do then.")
    due_at: float | None = None
    session_id: str | None = None
    occurred_at: float | None = None


TurnResult = Annotated[TurnSuccess | BudgetExceeded | InputError, strawberry.union("TurnResult")]
RememberResult = Annotated[MemoryPayload | InputError, strawberry.union("RememberResult")]
RetractResult = Annotated[MemoryPayload | NotFound | InputError, strawberry.union("RetractResult")]
RestoreResult = Annotated[RestoreSuccess | RestoreError, strawberry.union("RestoreResult")]
ProcedureResult = Annotated[MemoryPayload | NotFound | InputError, strawberry.union("ProcedureResult")]
TriggerResult = Annotated[MemoryPayload | NotFound | InputError, strawberry.union("TriggerResult")]
ConsolidateResult = Annotated[ConsolidationReport | ConsolidationBusy, strawberry.union("ConsolidateResult")]
ForgetResult = Annotated[ForgetSuccess | ForgetError, strawberry.union("ForgetResult")]


def _input_error(exc: InvalidInputError) -> InputError:
    return InputError(field=exc.field, message=str(exc))


def _properties(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidInputError("input.properties", "must be a JSON object")
    return value


async def _remember(info: strawberry.Info, scope: Scope, data: RememberInput) -> Memory:
    context = ctx(info)
    memory = context.services.memory
    layer = _Layer(data.layer)
    if layer is _Layer.WORKING:  # the conversation's buffer, not a memory op
        return Memory.of(await memory.push_working(scope, data.content, session_id=data.session_id))
    written = await memory.write(scope, _remember_op(layer, data), actor=context.principal.label)
    return Memory.of(written.stored)


def _remember_op(layer: _Layer, data: RememberInput) -> MemoryOp:
    """The memory op that stores ``data`` in ``layer``.

    Raises:
        InvalidInputError: A field is not valid for the layer.
    """
    importance: dict[str, Any] = {"importance": data.importance} if data.importance is not None else {}
    props = _properties(data.properties) or {}
    with validation_errors():
        if layer is _Layer.SEMANTIC:
            return UpsertNode(
                op="upsert_node", label=data.label, content=data.content, key=data.key, properties=props, **importance
            )
        if layer is _Layer.EPISODIC:
            return CreateEvent(
                op="create_event", content=data.content, label=data.label, occurred_at=data.occurred_at,
                session_id=data.session_id, properties=props, **importance,
            )  # fmt: skip
        if layer is _Layer.PROCEDURAL:
            return RegisterSkill(
                op="register_skill", name=data.label, steps=data.steps or [], context=data.content, properties=props,
                **importance,
            )  # fmt: skip
        return SetTrigger(
            op="set_trigger", condition=data.condition or "", task=data.task or "", due_at=data.due_at,
            importance=AUTHORED_TRIGGER_IMPORTANCE if data.importance is None else data.importance,
        )  # fmt: skip


@strawberry.type
class Mutation:
    @strawberry.mutation(description="One agent turn (the offline demo model unless Claude is configured).")
    async def turn(self, info: strawberry.Info, scope: str, message: str, session_id: str | None = None) -> TurnResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        try:
            response = await run_turn(context.services, context.principal, target, message, session_id)
        except BudgetExceededError as exc:
            return BudgetExceeded(
                scope_key=exc.scope_key, used=exc.used, budget=exc.budget, retry_after=exc.retry_after
            )
        except InvalidInputError as exc:
            return _input_error(exc)
        return TurnSuccess(
            reply=response.text,
            session_id=response.session_id,
            scope_key=response.scope_key,
            model=response.model,
            stop_reason=response.stop_reason,
            model_calls=response.model_calls,
            usage=TokenCounts(
                input_tokens=response.usage.total_input_tokens, output_tokens=response.usage.output_tokens
            ),
            activations=[to_graphql(a) for a in response.activations],
            extracted=to_graphql(response.memory) if response.memory else None,
            errors=[to_graphql(e) for e in response.errors],
            timings=JSON(response.timings.model_dump()),
        )

    @strawberry.mutation(description="Store a memory in one layer, no model call.")
    async def remember(self, info: strawberry.Info, scope: str, input: RememberInput) -> RememberResult:
        target = ctx(info).principal.target(scope, Role.WRITER)
        try:
            return MemoryPayload(memory=await _remember(info, target, input))
        except InvalidInputError as exc:
            return _input_error(exc)

    @strawberry.mutation(description="Soft-delete a memory of this scope (or below) with a reason; restorable.")
    async def retract(self, info: strawberry.Info, scope: str, id: strawberry.ID, reason: str) -> RetractResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        try:
            node_id = check_id(str(id), "id")
            if not reason.strip() or len(reason) > 1000:
                raise InvalidInputError("reason", "must be 1 to 1000 characters")
            with validation_errors():
                op = RetractNode(op="retract_node", id=node_id, reason=reason)
            await context.services.memory.write(target, op, actor=context.principal.label)
        except InvalidInputError as exc:
            if exc.field == "id":
                return NotFound(message=f"no memory {id} in {target.key}")
            return _input_error(exc)
        node = await context.loaders.memory.load(node_id)
        if node is None:
            return NotFound(message=f"no memory {id} in {target.key}")
        return MemoryPayload(memory=Memory.of(node))

    @strawberry.mutation(description="Restore a retracted memory within its grace period.")
    async def restore(self, info: strawberry.Info, scope: str, id: strawberry.ID) -> RestoreResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        try:
            node_id = check_id(str(id), "id")
            entry = await context.services.consolidator.restore(target, node_id, context.principal.label)
        except NotFoundError as exc:
            return RestoreError(code=RestoreErrorCode.NOT_FOUND, message=str(exc))
        except (ConflictError, InvalidInputError) as exc:
            return RestoreError(code=RestoreErrorCode.NOT_RESTORABLE, message=str(exc))
        node = await context.loaders.memory.load(node_id)
        return RestoreSuccess(memory=Memory.of(node) if node else None, audit=derived(AuditEntry, entry))

    @strawberry.mutation(description="Approve a draft procedure (it becomes active).")
    async def approve_procedure(self, info: strawberry.Info, scope: str, id: strawberry.ID) -> ProcedureResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        memory = context.services.memory
        return await _procedure(memory.approve_skill(target, str(id), actor=context.principal.label))

    @strawberry.mutation(description="Reject a procedure (it becomes inactive).")
    async def reject_procedure(
        self, info: strawberry.Info, scope: str, id: strawberry.ID, reason: str = ""
    ) -> ProcedureResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        memory = context.services.memory
        return await _procedure(memory.reject_skill(target, str(id), actor=context.principal.label, reason=reason))

    @strawberry.mutation(description="Switch an approved procedure on or off.")
    async def toggle_procedure(
        self, info: strawberry.Info, scope: str, id: strawberry.ID, active: bool
    ) -> ProcedureResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        memory = context.services.memory
        return await _procedure(memory.toggle_skill(target, str(id), actor=context.principal.label, active=active))

    @strawberry.mutation(description="Set a prospective trigger: when `condition`, do `task`.")
    async def set_trigger(
        self,
        info: strawberry.Info,
        scope: str,
        condition: str,
        task: str,
        due_at: float | None = None,
        about: list[str] | None = None,
    ) -> TriggerResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        try:
            with validation_errors():
                op = SetTrigger(
                    op="set_trigger", condition=condition, task=task, due_at=due_at, about=about or [],
                    importance=AUTHORED_TRIGGER_IMPORTANCE,
                )  # fmt: skip
            written = await context.services.memory.write(target, op, actor=context.principal.label)
        except InvalidInputError as exc:
            return _input_error(exc)
        return MemoryPayload(memory=Memory.of(written.stored))

    @strawberry.mutation(description="Mark a trigger of exactly this scope resolved.")
    async def resolve_trigger(
        self, info: strawberry.Info, scope: str, id: strawberry.ID, outcome: str = ""
    ) -> TriggerResult:
        node_id = check_id(str(id), "id")
        return await _write_stored(
            info, scope, lambda: ResolveTrigger(op="resolve_trigger", id=node_id, outcome=outcome)
        )

    @strawberry.mutation(description="Keep a trigger of exactly this scope from firing before `until` (epoch s).")
    async def snooze_trigger(self, info: strawberry.Info, scope: str, id: strawberry.ID, until: float) -> TriggerResult:
        node_id = check_id(str(id), "id")
        return await _write_stored(info, scope, lambda: SnoozeTrigger(op="snooze_trigger", id=node_id, until=until))

    @strawberry.mutation(description="Consolidate a scope's subtree now (QUICK nap or FULL run); the report.")
    async def consolidate(
        self, info: strawberry.Info, scope: str, mode: ConsolidationMode = ConsolidationMode.QUICK
    ) -> ConsolidateResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.WRITER)
        consolidator = context.services.consolidator
        try:
            if mode is ConsolidationMode.QUICK:
                report = await consolidator.quick_nap(target)
            else:
                report = await consolidator.run(target)
        except AlreadyRunningError as exc:
            return ConsolidationBusy(message=str(exc))
        return ConsolidationReport.of(report)

    @strawberry.mutation(description="Erase a scope and everything below it (admin; `confirm` repeats the key).")
    async def forget(self, info: strawberry.Info, scope: str, confirm: str) -> ForgetResult:
        context = ctx(info)
        target = context.principal.target(scope, Role.ADMIN)
        if confirm != target.key:
            return ForgetError(message="confirm must repeat the scope key exactly; nothing was erased")
        erased = await erase_scope(context.services.memory, context.services.repo.keys, target)  # its keys go with it
        return ForgetSuccess(scope_key=target.key, erased=erased)


async def _write_stored(
    info: strawberry.Info, scope: str, build: Callable[[], MemoryOp]
) -> MemoryPayload | NotFound | InputError:
    """Build one memory op (its validation errors become ``InputError``) and write it to
    ``scope`` through the one commit path, as the caller."""
    context = ctx(info)
    target = context.principal.target(scope, Role.WRITER)

    async def write() -> MemoryNode:
        with validation_errors():
            op = build()
        written = await context.services.memory.write(target, op, actor=context.principal.label)
        return written.stored

    return await _procedure(write())


async def _procedure(work: Awaitable[MemoryNode]) -> MemoryPayload | NotFound | InputError:
    try:
        node = await work
    except NotFoundError as exc:
        return NotFound(message=str(exc))
    except InvalidInputError as exc:
        if exc.field in ("id", "node_id", "skill_id"):
            return NotFound(message=str(exc))
        return _input_error(exc)
    return MemoryPayload(memory=Memory.of(node))
