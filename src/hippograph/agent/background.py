"""Background consolidation of a finished turn; it never delays or fails the reply.

For each turn, in order (each step on its own: one failing does not stop the next):

1. the turn as an episodic event ``User: … | Agent: …`` (chained after the session's
   previous turn);
2. the model's memory ops applied by layer (credentials scrubbed from every text field
   first; skills as drafts unless auto-approve), with the turn event as their source;
3. the turn event ``MENTIONS`` every fact the ops wrote;
4. the model's thinking into working memory (≤ 500 characters, 24 h), then the turn;
5. a quick nap when the consolidator's per-scope counter said one is due.

Work of one session runs in turn order (each task awaits its predecessor). Failures are
logged, reported as :class:`~hippograph.agent.events.StageFailed` events to the hooks and at the
start of the session's next turn, and kept in the :class:`BackgroundReport`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippograph.agent.config import ConsolidationSettings
from hippograph.agent.events import InvalidOpInfo, StageFailed
from hippograph.agent.sessions import Session
from hippograph.errors import AlreadyRunningError
from hippograph.layers.episodic import turn_text
from hippograph.models import MAX_TEXT, MemoryEdge, Relationship
from hippograph.ops import MEMORY_OP_ADAPTER, MemoryOp
from hippograph.scrub import scrub_properties, scrub_text

if TYPE_CHECKING:
    from hippograph.consolidation import ConsolidationReport, SleepConsolidator
    from hippograph.layers import CommitReport, MemoryOrchestrator
    from hippograph.scope import Scope

log = logging.getLogger(__name__)

MAX_USER_CHARS = 6_000
MAX_AGENT_CHARS = MAX_TEXT - MAX_USER_CHARS - 100
MAX_REPORTS = 1_000
_UNSCRUBBED_FIELDS = frozenset({"op", "id"})
T = TypeVar("T")


@dataclass
class TurnRecord:
    """What a finished turn leaves for consolidation."""

    scope: Scope
    session: Session
    user: str
    reply: str
    thinking: str = ""
    ops: list[MemoryOp] = field(default_factory=list)
    quick_nap: bool = False
    task_id: str = field(default_factory=lambda: uuid.uuid4().hex)


class BackgroundReport(BaseModel):
    """What consolidation of one turn did."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task_id: str
    scope_key: str
    session_id: str
    turn_event_id: str | None = None
    working_ids: list[str] = Field(default_factory=list)
    commit: Any = None
    """The :class:`~hippograph.layers.CommitReport` of the ops (None when none ran)."""
    mentions: list[str] = Field(default_factory=list)
    skipped_ops: list[InvalidOpInfo] = Field(default_factory=list)
    nap: Any = None
    """The quick nap's :class:`~hippograph.consolidation.ConsolidationReport`, if one ran."""
    errors: list[StageFailed] = Field(default_factory=list)
    ms: float = 0.0


Reporter = Callable[[TurnRecord, BackgroundReport], None]


class BackgroundConsolidation:
    """Schedules and tracks the consolidation tasks of an agent.

    Args:
        memory: The memory to write to.
        consolidator: Runs quick naps (None: never).
        settings: What to store.
        on_done: Called (inline, must not raise) with each finished report.
    """

    def __init__(
        self,
        memory: MemoryOrchestrator,
        consolidator: SleepConsolidator | None,
        settings: ConsolidationSettings,
        on_done: Reporter,
    ) -> None:
        self._memory = memory
        self._consolidator = consolidator
        self._settings = settings
        self._on_done = on_done
        self._tasks: set[asyncio.Task[None]] = set()
        self._done: deque[BackgroundReport] = deque(maxlen=MAX_REPORTS)

    @property
    def pending(self) -> int:
        """Tasks not finished yet."""
        return len(self._tasks)

    def schedule(self, record: TurnRecord) -> str:
        """Start consolidating ``record`` after its session's previous turn; return the id."""
        previous = record.session.tail
        task = asyncio.create_task(self._run(record, previous), name=f"hippograph-consolidate-{record.task_id}")
        record.session.tail = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return record.task_id

    async def drain(self) -> list[BackgroundReport]:
        """Wait for every scheduled task; the reports finished since the last drain."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        reports = list(self._done)
        self._done.clear()
        return reports

    async def _run(self, record: TurnRecord, previous: asyncio.Task[None] | None) -> None:
        if previous is not None and not previous.done():
            await asyncio.wait([previous])
        started = time.perf_counter()
        report = BackgroundReport(task_id=record.task_id, scope_key=record.scope.key, session_id=record.session.id)
        try:
            await self._consolidate(record, report)
        except Exception as exc:  # a bug here must not surface as "Task exception never retrieved"
            log.exception("background consolidation failed")
            report.errors.append(StageFailed.from_exception("consolidate", exc))
        report.ms = (time.perf_counter() - started) * 1000.0
        self._done.append(report)
        try:
            self._on_done(record, report)
        except Exception:
            log.exception("background consolidation reporter failed")

    async def _consolidate(self, record: TurnRecord, report: BackgroundReport) -> None:
        s, memory, scope = self._settings, self._memory, record.scope
        user = _cut(scrub_text(record.user), MAX_USER_CHARS)
        agent = _cut(scrub_text(record.reply), MAX_AGENT_CHARS)

        async def guard(stage: str, work: Callable[[], Awaitable[T]]) -> T | None:
            try:
                return await work()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("consolidation step %s failed: %s", stage, type(exc).__name__,
                            exc_info=True)  # fmt: skip
                report.errors.append(StageFailed.from_exception(stage, exc))
                return None

        if s.store_turn_episodic:
            event = await guard(
                "store_turn",
                lambda: memory.episodic.store_turn(scope, user, agent, session_id=record.session.id),
            )
            report.turn_event_id = event.id if event is not None else None
        ops = [] if not s.apply_ops else _scrubbed_ops(record.ops, report)
        if ops:
            commit: CommitReport | None = await guard(
                "commit",
                lambda: memory.commit(
                    scope, ops, auto_approve_skills=s.auto_approve_skills,
                    source_event_id=report.turn_event_id,
                ),
            )  # fmt: skip
            report.commit = commit
            if commit is not None:
                for failure in commit.failed:
                    report.errors.append(
                        StageFailed(stage="commit", error_type="OpFailed",
                              message=f"op {failure.get('index')} ({failure.get('op')}): "
                                      f"{failure.get('error')}"[:500])
                    )  # fmt: skip
                facts = [a["id"] for a in commit.applied if a.get("op") == "upsert_node" and a.get("id")]
                report.mentions = list(dict.fromkeys(facts))
        if report.turn_event_id and report.mentions:
            edges = [
                MemoryEdge(source=report.turn_event_id, target=fact, relationship=Relationship.MENTIONS)
                for fact in report.mentions
            ]
            await guard("mentions", lambda: memory.store.upsert_edges(scope, edges, increment=0.0))
        session_id = record.session.id
        thinking = scrub_text(record.thinking.strip())
        if s.store_thinking and thinking:
            node = await guard(
                "store_thinking",
                lambda: memory.working.push(
                    scope, thinking, kind="thinking", session_id=session_id, ttl=s.thinking_ttl
                ),
            )
            if node is not None:
                report.working_ids.append(node.id)
        if s.store_turn_working:
            node = await guard(
                "store_working",
                lambda: memory.working.push(scope, turn_text(user, agent), kind="turn", session_id=session_id),
            )
            if node is not None:
                report.working_ids.append(node.id)
        if record.quick_nap and self._consolidator is not None:
            report.nap = await self._nap(scope, report)

    async def _nap(self, scope: Scope, report: BackgroundReport) -> ConsolidationReport | None:
        assert self._consolidator is not None
        try:
            return await self._consolidator.quick_nap(scope)
        except AlreadyRunningError:
            log.info("quick nap of %s skipped: another consolidation holds the scope", scope.key)
            return None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("quick nap failed: %s", type(exc).__name__, exc_info=True)
            report.errors.append(StageFailed.from_exception("quick_nap", exc))
            return None


def scrub_op(op: MemoryOp) -> MemoryOp:
    """The op with credentials masked in every text field and secret-looking property keys
    dropped.

    Raises:
        ValidationError: The scrubbed op is no longer valid (e.g. a field grew too long).
    """
    data = op.model_dump(mode="json")
    clean = {key: value if key in _UNSCRUBBED_FIELDS else _scrub(key, value) for key, value in data.items()}
    return MEMORY_OP_ADAPTER.validate_python(clean)


def _scrub(key: str, value: Any) -> Any:
    if key == "properties" and isinstance(value, dict):
        return scrub_properties(value)
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, list):
        return [_scrub(key, v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(k, v) for k, v in value.items()}
    return value


def _scrubbed_ops(ops: list[MemoryOp], report: BackgroundReport) -> list[MemoryOp]:
    out: list[MemoryOp] = []
    for index, op in enumerate(ops):
        try:
            out.append(scrub_op(op))
        except (ValidationError, ValueError) as exc:
            reason = f"invalid after scrubbing credentials: {type(exc).__name__}"
            report.skipped_ops.append(InvalidOpInfo(index=index, reason=reason))
    return out


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
