"""Background consolidation of a finished turn; it never delays or fails the reply.

The writing is :meth:`~hippograph.memory.capability.MemoryCapability.record` of the turn's
scope; this module runs it off the reply's path, in session order. For each turn, in order
(each step on its own: one failing does not stop the next):

1. the turn as an episodic event ``User: … | Agent: …`` (chained after the session's
   previous turn, ``DERIVED_FROM`` the memories the model was shown, so that recall ranks it
   below them; the session's state — its summary, the due triggers it showed — on its
   properties), and the agent's tool calls as an ``action`` event ``PART_OF`` it;
2. the model's memory ops applied by layer (credentials scrubbed from every text field
   first; skills as drafts unless auto-approve), with the turn event as their source;
3. the turn event ``MENTIONS`` every fact the ops wrote;
4. the model's thinking into working memory (≤ 500 characters, 24 h), then the turn;
5. a quick nap when the consolidator's per-scope counter said one is due.

Work of one session runs in turn order (each task awaits its predecessor). Failures are
logged, reported as :class:`~hippograph.agent.events.StageFailed` events to the hooks and at the
start of the session's next turn, and kept in the :class:`BackgroundReport`.

The schedule stage of a turn (:func:`record_turn`) counts the turn towards the scope's nap
cadence, hands the exchange to background consolidation (the reply does not wait for it),
remembers it in the session, and seeds the persona's identity on the scope's first answered
turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from hippograph.agent.config import ConsolidationSettings
from hippograph.agent.events import AgentEvent, ConsolidationScheduled, InvalidOpInfo, StageFailed
from hippograph.agent.reminders import PersonaSeeder
from hippograph.agent.sessions import Session, Turn
from hippograph.agent.stages import Stage
from hippograph.agent.telemetry import TelemetrySink, TurnStats, TurnSummary, summary_attributes
from hippograph.agent.turn import TurnLog
from hippograph.layers.episodic import ActionCall
from hippograph.memory.capability import MAX_AGENT_CHARS, MAX_USER_CHARS
from hippograph.memory.op_scrub import scrub_op
from hippograph.ops import MemoryOp
from hippograph.scrub import scrub_text
from hippograph.tracing import SCOPE_KEY, Status, StatusCode, span

if TYPE_CHECKING:
    from hippograph.agent.config import AgentConfig
    from hippograph.consolidation import SleepConsolidator
    from hippograph.memory import Extractor, Memory
    from hippograph.scope import Scope

__all__ = [
    "MAX_AGENT_CHARS",
    "MAX_USER_CHARS",
    "BackgroundConsolidation",
    "BackgroundReport",
    "TurnRecord",
    "scrub_op",
]

log = logging.getLogger(__name__)

MAX_REPORTS = 1_000


@dataclass
class TurnRecord:
    """What a finished turn leaves for consolidation."""

    scope: Scope
    session: Session
    user: str
    reply: str
    thinking: str = ""
    ops: list[MemoryOp] = field(default_factory=list)
    actions: list[ActionCall] = field(default_factory=list)
    stats: TurnStats = field(default_factory=TurnStats)
    """The foreground turn's numbers, for the telemetry sink."""
    quick_nap: bool = False
    drawn_from: list[str] = field(default_factory=list)
    """The memories the model was shown (the reply may draw on them): the turn records them."""
    task_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    session_state: dict[str, JsonValue] = field(default_factory=dict)
    """The session's state when the turn ended, kept on its turn event (see
    :func:`~hippograph.agent.sessions.state_properties`)."""


class BackgroundReport(BaseModel):
    """What consolidation of one turn did."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task_id: str
    scope_key: str
    session_id: str
    turn_event_id: str | None = None
    action_event_id: str | None = None
    working_ids: list[str] = Field(default_factory=list)
    commit: Any = None
    """The :class:`~hippograph.memory.CommitReport` of the ops (None when none ran)."""
    mentions: list[str] = Field(default_factory=list)
    extracted: list[MemoryOp] = Field(default_factory=list)
    """Ops the agent's extractor found in the exchange (applied with the reply's own)."""
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
        extractor: Finds memories in each exchange (besides the reply's own ops).
        telemetry: Receives a :class:`~hippograph.agent.telemetry.TurnSummary` of each turn
            once its consolidation is done (None: no telemetry).
    """

    def __init__(
        self,
        memory: Memory,
        consolidator: SleepConsolidator | None,
        settings: ConsolidationSettings,
        on_done: Reporter,
        *,
        extractor: Extractor | None = None,
        telemetry: TelemetrySink | None = None,
    ) -> None:
        self._memory = memory
        self._telemetry = telemetry
        self._extractor = extractor
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
        self._memory.track(record.scope, task)
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
        attributes = {SCOPE_KEY: record.scope.key, "gen_ai.conversation.id": record.session.id}
        with span("hippograph.agent.consolidate", attributes) as current:
            try:
                await self._consolidate(record, report)
            except Exception as exc:  # a bug here must not surface as "Task exception never retrieved"
                log.exception("background consolidation failed")
                report.errors.append(StageFailed.from_exception("consolidate", exc))
                current.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            report.ms = (time.perf_counter() - started) * 1000.0
            summary = _summary(record, report)
            if current.is_recording():
                current.set_attributes(summary_attributes(summary))
        self._done.append(report)
        if self._telemetry is not None:
            await self._send_telemetry(self._telemetry, summary)
        try:
            self._on_done(record, report)
        except Exception:
            log.exception("background consolidation reporter failed")

    @staticmethod
    async def _send_telemetry(sink: TelemetrySink, summary: TurnSummary) -> None:
        try:
            await sink.record(summary)
        except Exception:
            log.warning("telemetry sink %s failed", type(sink).__name__, exc_info=True)

    async def _consolidate(self, record: TurnRecord, report: BackgroundReport) -> None:
        capability = self._memory.for_scope(
            record.scope, extractor=self._extractor, consolidation=self._consolidator,
            policy=self._settings.record_policy(),
        )  # fmt: skip
        done = await capability.record(
            record.user, record.reply, thinking=record.thinking, session_id=record.session.id,
            ops=record.ops, actions=record.actions, nap=record.quick_nap, drawn_from=record.drawn_from,
        )  # fmt: skip
        report.turn_event_id = done.turn_event_id
        report.action_event_id = done.action_event_id
        report.working_ids = list(done.working_ids)
        report.commit = done.commit
        report.mentions = list(done.mentions)
        report.extracted = list(done.extracted)
        report.skipped_ops = [InvalidOpInfo(index=s.index, reason=s.reason) for s in done.skipped_ops]
        if done.nap_task is not None:  # this is the background already: wait for the nap
            await done.nap_task
        report.nap = done.nap
        report.errors.extend(
            StageFailed(stage=f.step, error_type=f.error_type, message=f.message) for f in done.failures
        )
        if record.session_state and done.turn_event_id is not None:
            try:
                await self._keep_state(record, done.turn_event_id)
            except Exception as exc:
                log.warning("keeping the session state failed: %s", type(exc).__name__, exc_info=True)
                report.errors.append(StageFailed.from_exception("session_state", exc))

    async def _keep_state(self, record: TurnRecord, event_id: str) -> None:
        """The session's state onto the turn's event, where a resume finds it."""
        event = await self._memory.get_node(record.scope, event_id)
        if event is not None:
            properties = {**event.properties, **record.session_state}
            await self._memory.update_node(record.scope, event_id, {"properties": properties})


def _summary(record: TurnRecord, report: BackgroundReport) -> TurnSummary:
    """The finished turn's summary: the foreground's numbers and what the background did."""
    commit = report.commit
    return TurnSummary(
        scope_key=report.scope_key, session_id=report.session_id, task_id=report.task_id, turn=record.stats,
        turn_event_id=report.turn_event_id, action_event_id=report.action_event_id,
        applied_ops=len(commit.applied) if commit is not None else 0,
        failed_ops=len(commit.failed) if commit is not None else 0,
        skipped_ops=len(report.skipped_ops), quick_nap=report.nap is not None, background_ms=round(report.ms, 3),
        background_failures=[e.stage for e in report.errors],
    )  # fmt: skip


async def record_turn(
    turn: TurnLog,
    session: Session,
    *,
    reply: str,
    ops: list[MemoryOp],
    actions: list[ActionCall],
    config: AgentConfig,
    memory: Memory,
    consolidator: SleepConsolidator | None,
    background: BackgroundConsolidation,
    persona: PersonaSeeder,
) -> AsyncIterator[AgentEvent]:
    """The schedule stage: schedule the background work; yield ``ConsolidationScheduled``
    when it is on (after a failed persona seed, if one failed)."""
    c = config
    scheduled: ConsolidationScheduled | None = None
    with turn.clock.time(Stage.SCHEDULE):
        if c.consolidation.enabled:
            nap = False
            if c.consolidation.quick_naps and consolidator is not None:
                nap = consolidator.note_turn(turn.scope)
            stats = turn.stats(reply=reply, tools=[a.tool for a in actions], ops=len(ops))
            record = TurnRecord(
                scope=turn.scope, session=session, user=turn.message, reply=reply,
                thinking="".join(turn.thinking), ops=list(ops), actions=list(actions), stats=stats, quick_nap=nap,
                drawn_from=turn.shown(),
                session_state=session.state(),
            )  # fmt: skip
            task_id = background.schedule(record)
            scheduled = ConsolidationScheduled(op_count=len(ops), quick_nap=nap, task_id=task_id)
        if c.sessions.history_turns:
            session.record(Turn(scrub_text(turn.message), scrub_text(reply)))
        else:
            session.turns += 1
        seeded = await _seed_persona(memory, turn.scope, c, persona)
    if seeded is not None:
        yield seeded
    if scheduled is not None:
        yield scheduled


async def _seed_persona(
    memory: Memory, scope: Scope, config: AgentConfig, persona: PersonaSeeder
) -> StageFailed | None:
    """Seed the persona's identity once the turn has its reply (a failure is an event)."""
    if not config.persona.enabled:
        return None
    try:
        await persona.seed(memory, scope)
    except Exception as exc:
        return StageFailed.from_exception("schedule.persona", exc)
    return None
