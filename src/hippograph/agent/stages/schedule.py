"""Schedule stage: count the turn towards the scope's nap cadence, hand the exchange to
background consolidation (the reply does not wait for it), remember it in the session, and
seed the persona's identity on the scope's first answered turn."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hippograph.agent.background import TurnRecord
from hippograph.agent.events import AgentEvent, ConsolidationScheduled, StageFailed
from hippograph.agent.sessions import Turn
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.telemetry import TurnStats
from hippograph.agent.turn_state import TurnState
from hippograph.scrub import scrub_text


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """Schedule the background work; yield ``ConsolidationScheduled`` when it is on."""
    session = t.require_session()
    c = d.config
    scheduled: ConsolidationScheduled | None = None
    with t.clock.time(Stage.SCHEDULE):
        if c.consolidation.enabled:
            nap = False
            if c.consolidation.quick_naps and d.consolidator is not None:
                nap = d.consolidator.note_turn(t.scope)
            record = TurnRecord(
                scope=t.scope, session=session, user=t.message, reply=t.reply,
                thinking="".join(t.thinking), ops=list(t.ops), actions=list(t.actions), stats=_stats(t), quick_nap=nap,
            )  # fmt: skip
            task_id = d.background.schedule(record)
            scheduled = ConsolidationScheduled(op_count=len(t.ops), quick_nap=nap, task_id=task_id)
        if c.sessions.history_turns:
            session.record(Turn(scrub_text(t.message), scrub_text(t.reply)))
        else:
            session.turns += 1
        seeded = await _seed_persona(t, d)
    if seeded is not None:
        yield seeded
    if scheduled is not None:
        yield scheduled


async def _seed_persona(t: TurnState, d: StageDeps) -> StageFailed | None:
    """Seed the persona's identity once the turn has its reply (a failure is an event)."""
    if not d.config.persona.enabled:
        return None
    try:
        await d.persona.seed(t.scope)
    except Exception as exc:
        return StageFailed.from_exception("schedule.persona", exc)
    return None


def _stats(t: TurnState) -> TurnStats:
    """The turn's numbers so far (for the telemetry sink): no text, only sizes and names."""
    return TurnStats(
        model=t.model_name, stop_reason=t.stop_reason, model_calls=t.model_calls, usage=t.usage,
        stages_ms={k: round(v, 3) for k, v in t.clock.stages.items()}, tools=[a.tool for a in t.actions],
        message_chars=len(t.message), reply_chars=len(t.reply), ops=len(t.ops),
        stage_failures=[e.stage for e in t.errors],
    )  # fmt: skip
