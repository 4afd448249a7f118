"""The MCP tools. Each acts for the server's one key (see :mod:`.binding`) on the key's scope or
a scope below it, named by the optional ``scope`` argument. Expected failures (bad input, a
scope out of reach, a role too low, a revoked key) come back as tool errors with a clear
message; nothing is written when a call fails.

No ``from __future__ import annotations`` here: the SDK reads these signatures at runtime to
build each tool's JSON schema and to find the ``Context`` parameter.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from hippograph.app.access.keys import Role
from hippograph.app.mcp.answers import PendingTrigger, PendingTriggers, RecallAnswer, StoredMemory
from hippograph.app.mcp.binding import KeyBinding
from hippograph.app.recall_view import path_labels
from hippograph.consolidation.report import ConsolidationReport
from hippograph.errors import HippographError, InvalidInputError, validation_errors
from hippograph.memory.commit import AUTHORED_TRIGGER_IMPORTANCE
from hippograph.models import Layer, check_id
from hippograph.ops import CreateEvent, MemoryOp, RetractNode, SetTrigger, UpsertNode
from hippograph.tracing import span

ScopeArg = Annotated[
    str | None,
    Field(description="A scope at or below the key's scope, e.g. org:acme/user:bob (default: the key's scope)."),
]
NamespaceArg = Annotated[
    str | None,
    Field(
        max_length=64,
        description="A namespace of that scope's path, e.g. support: its memories and the shared ones "
        "(no namespace) only (default: the one the scope names, else none).",
    ),
]
LayerName = Literal["working", "episodic", "semantic", "procedural", "prospective"]
MAX_TEXT = 4000


class RetractAnswer(BaseModel):
    id: str
    scope_key: str
    retracted: bool
    reason: str


@contextmanager
def tool_errors(name: str) -> Iterator[None]:
    """The call of tool ``name``, in a span ``execute_tool <name>`` (GenAI semantic conventions);
    a library error becomes a tool error carrying its message (the model reads it)."""
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "mcp.method.name": "tools/call"}
    with span(f"execute_tool {name}", attributes):
        try:
            yield
        except HippographError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from None


def _binding(ctx: Context) -> KeyBinding:
    return cast(KeyBinding, ctx.request_context.lifespan_context)


def _timestamp(value: str | None, field: str) -> float | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(field, f"not an ISO 8601 date or time: {value!r:.60}") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


async def recall(
    query: Annotated[str, Field(min_length=1, max_length=2000, description="What to remember, in words.")],
    ctx: Context,
    scope: ScopeArg = None,
    namespace: NamespaceArg = None,
    top_k: Annotated[int, Field(ge=1, le=50, description="How many memories.")] = 5,
    layers: Annotated[list[LayerName] | None, Field(description="Only these layers (default: all).")] = None,
) -> RecallAnswer:
    """Recall memories for a query — hybrid vector + full-text search, then spreading activation
    over the memory graph. Every item says why: the channels that found it, its score parts, and
    the activation path (in words) that reached it. Superseded facts are marked not current."""
    binding = _binding(ctx)
    with tool_errors("recall"):
        target = await binding.target(scope, Role.READER, namespace)
        wanted = [Layer(x) for x in layers] if layers else None
        result = await binding.memory.recall(target, query, top_k=top_k, layers=wanted)
        return RecallAnswer.of(result, await path_labels(binding.memory, target, result))


async def remember(
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT, description="The fact or event, one sentence.")],
    ctx: Context,
    about: Annotated[str, Field(max_length=200, description="A short label (default: the text's start).")] = "",
    key: Annotated[
        str | None,
        Field(
            max_length=200,
            description="Semantic facts: a stable subject key (user.home_city); a new fact with "
            "the same key supersedes the current one.",
        ),
    ] = None,
    layer: Annotated[Literal["semantic", "episodic"], Field(description="A fact or an event.")] = "semantic",
    scope: ScopeArg = None,
    namespace: NamespaceArg = None,
) -> StoredMemory:
    """Store a memory without a model call: a semantic fact (optionally keyed, so a newer fact
    with the same key supersedes the old one) or an episodic event."""
    binding = _binding(ctx)
    label = about or " ".join(text.split())[:80]  # one line: the text with its whitespace folded
    with tool_errors("remember"):
        target = await binding.target(scope, Role.WRITER, namespace)
        with validation_errors():
            op: MemoryOp = (
                CreateEvent(op="create_event", content=text, label=label)
                if layer == "episodic"
                else UpsertNode(op="upsert_node", label=label, content=text, key=key)
            )
        written = await binding.memory.write(target, op, actor="mcp")
        return StoredMemory.of(written.stored)


async def retract(
    id: Annotated[str, Field(min_length=1, max_length=64, description="The memory's id (from recall).")],
    reason: Annotated[str, Field(min_length=1, max_length=1000, description="Why it is wrong or unwanted.")],
    ctx: Context,
    scope: ScopeArg = None,
    namespace: NamespaceArg = None,
) -> RetractAnswer:
    """Retract (soft-delete) a memory of the scope or below, with a reason; recall no longer
    returns it, and it can be restored within the grace period through the API."""
    binding = _binding(ctx)
    with tool_errors("retract"):
        target = await binding.target(scope, Role.WRITER, namespace)
        principal = await binding.principal()
        node_id = check_id(id, "id")
        with validation_errors():
            op = RetractNode(op="retract_node", id=node_id, reason=reason)
        await binding.memory.write(target, op, actor=f"mcp {principal.label}")
        return RetractAnswer(id=node_id, scope_key=target.key, retracted=True, reason=reason)


async def set_trigger(
    condition: Annotated[str, Field(min_length=1, max_length=500, description="When it should fire.")],
    task: Annotated[str, Field(min_length=1, max_length=1000, description="What to do then.")],
    ctx: Context,
    due: Annotated[str | None, Field(description="ISO 8601 date or time it is due (UTC when no zone).")] = None,
    scope: ScopeArg = None,
    namespace: NamespaceArg = None,
) -> PendingTrigger:
    """Set a prospective memory: when ``condition`` holds (or at ``due``), do ``task``."""
    binding = _binding(ctx)
    with tool_errors("set_trigger"):
        due_at = _timestamp(due, "due")
        target = await binding.target(scope, Role.WRITER, namespace)
        with validation_errors():
            op = SetTrigger(
                op="set_trigger", condition=condition, task=task, due_at=due_at, importance=AUTHORED_TRIGGER_IMPORTANCE
            )
        written = await binding.memory.write(target, op, actor="mcp")
        return PendingTrigger.of(written.stored, time.time())


async def pending_triggers(
    ctx: Context,
    scope: ScopeArg = None,
    namespace: NamespaceArg = None,
    due_before: Annotated[str | None, Field(description="Only triggers due before this ISO 8601 time.")] = None,
) -> PendingTriggers:
    """List the unresolved prospective triggers (plans, reminders) of exactly this scope, oldest
    first, with their due dates and whether they are overdue."""
    binding = _binding(ctx)
    with tool_errors("pending_triggers"):
        before = _timestamp(due_before, "due_before")
        target = await binding.target(scope, Role.READER, namespace)
        pending = await binding.memory.get_pending(target, due_before=before)
        now = time.time()
        return PendingTriggers(scope_key=target.key, triggers=[PendingTrigger.of(n, now) for n in pending])


async def consolidate(
    ctx: Context,
    mode: Annotated[Literal["quick", "full"], Field(description='quick nap or a full run ("sleep").')] = "quick",
    scope: ScopeArg = None,
    namespace: NamespaceArg = None,
) -> ConsolidationReport:
    """Consolidate the scope's subtree now ("sleep"): decay, deduplication, inferred links,
    promotion of repeated procedures, pruning. Returns the run's report, phase by phase."""
    binding = _binding(ctx)
    with tool_errors("consolidate"):
        target = await binding.target(scope, Role.WRITER, namespace)
        if mode == "quick":
            return await binding.consolidator.quick_nap(target)
        return await binding.consolidator.run(target)


TOOLS: tuple[Any, ...] = (recall, remember, retract, set_trigger, pending_triggers, consolidate)
