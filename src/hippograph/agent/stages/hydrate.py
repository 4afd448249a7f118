"""Hydrate stage: recall into the memory context (full prompt mode), then the prompt: the
system prompt and the messages of the first model call.

In JIT mode nothing is recalled here: the model asks through the ``hydrate_context`` tool
(see :mod:`hippograph.agent.stages.tools`). In both modes the scope's triggers are evaluated
(each fired one a ``TriggerFired`` event, all in the REMINDERS section), the persona joins the
instructions, and the summaries of older turns (working memory, a compacted long session) join
the context when their modes are on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.hydrate import Hydration, guarded
from hippograph.agent.prompt_sections import SectionInput
from hippograph.agent.prompts import full_system_prompt, jit_system_prompt
from hippograph.agent.prompts.sections import with_sections
from hippograph.agent.reminders import Reminders, reminders
from hippograph.agent.sessions import turn_text
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState
from hippograph.layers.turn_reads import TurnReads
from hippograph.layers.working import SUMMARY_MARK
from hippograph.llm.types import ChatMessage
from hippograph.models import Layer

EARLIER_HEADER = "## EARLIER IN THIS CONVERSATION"


async def run(t: TurnState, d: StageDeps) -> AsyncIterator[AgentEvent]:
    """Recall, triggers, persona and summaries at once (independent reads, each on its own
    session); then their events in a fixed order (recall's failures and its Activation, then
    the other parts' failures, then the triggers that fired), then the prompt."""
    c = d.config
    recall = c.hydrate.enabled and not t.jit
    failed: tuple[list[StageFailed], list[StageFailed], list[StageFailed]] = ([], [], [])
    with t.clock.time(Stage.HYDRATE):
        reads = _turn_reads(t, d, recall)
        try:
            hydration, due, persona, earlier = await asyncio.gather(
                _hydration(t, d, reads) if recall else _nothing(),
                guarded("hydrate.triggers", _reminders(t, d, reads), failed[0]),
                guarded("hydrate.persona", d.persona.text(t.scope, reads), failed[1])
                if c.persona.enabled
                else _nothing(),
                guarded("hydrate.summaries", _summaries(t, d), failed[2]),
            )
        finally:
            reads.close()
        errors = [*failed[0], *failed[1], *failed[2], *d.summarizer.errors]
        d.summarizer.errors.clear()
    memory_text = ""
    if hydration is not None:
        for error in hydration.errors:
            yield error
        if hydration.activation is not None:
            yield hydration.activation
        memory_text = hydration.text
        t.memory_texts.append(memory_text)
    due = due or Reminders()
    for error in errors:
        yield error
    for fired in due.events:
        yield fired

    with t.clock.time(Stage.PROMPT):
        if t.jit:
            t.system = jit_system_prompt(
                scope=t.scope.key, agent_name=c.agent_name, agent_description=c.agent_description,
                cache=c.cache_system_prompt,
            )  # fmt: skip
        else:
            t.system = full_system_prompt(
                memory_text, scope=t.scope.key, agent_name=c.agent_name,
                agent_description=c.agent_description, cache=c.cache_system_prompt,
            )  # fmt: skip
        context = "\n\n".join(part for part in (earlier, due.text) if part)
        t.system = with_sections(t.system, instructions=persona or "", context=context)
        history = t.require_session().messages() if c.sessions.history_turns else []
        t.messages = [*history, ChatMessage(role="user", content=t.message)]
        failures = await _plugin_sections(t, d)
    for failure in failures:
        yield failure


def _turn_reads(t: TurnState, d: StageDeps, recall: bool) -> TurnReads:
    """The turn's working-memory, trigger and persona reads, started at once in one statement
    (each only when the part below that uses it runs)."""
    c, layers = d.config, t.require_decision().layers
    return d.memory.turn_reads(
        t.scope,
        working=recall and c.hydrate.include_working and Layer.WORKING in layers,  # as the hydrator shows them
        prospective=c.hydrate.include_triggers and Layer.PROSPECTIVE in layers,
        persona=c.persona.enabled,
    )


async def _hydration(t: TurnState, d: StageDeps, reads: TurnReads) -> Hydration:
    return await d.hydrator.hydrate(
        t.scope, t.message, t.require_decision().layers, session_id=t.require_session().id, turn_reads=reads
    )


async def _nothing() -> None:
    return None


async def _reminders(t: TurnState, d: StageDeps, reads: TurnReads) -> Reminders:
    s = d.config.hydrate
    if not s.include_triggers or Layer.PROSPECTIVE not in t.require_decision().layers:
        return Reminders()
    return await reminders(d.memory, t.scope, t.message, max_shown=s.max_triggers, turn_reads=reads)


async def _summaries(t: TurnState, d: StageDeps) -> str:
    """The EARLIER section: the compacted session, then working memory's older entries."""
    c, session = d.config, t.require_session()
    if session.overflow and c.sessions.compaction != "off":
        folded = [session.summary, *(turn_text(turn) for turn in session.overflow)]
        session.summary = await d.summarizer.summarize(folded, c.sessions.compaction, stage="hydrate.compaction")
        session.overflow = []
    lines = [f"Summary of the turns before these messages: {session.summary}"] if session.summary else []
    mode = c.hydrate.working_summary
    if mode != "off" and c.hydrate.include_working and Layer.WORKING in t.require_decision().layers:
        older = await d.memory.working.older(t.scope, session_id=session.id)
        text = await d.summarizer.summarize([m.content for m in older], mode, stage="hydrate.working_summary")
        if text:
            lines.append(SUMMARY_MARK + text)
    return "\n".join([EARLIER_HEADER, *lines]) if lines else ""


async def _plugin_sections(t: TurnState, d: StageDeps) -> list[StageFailed]:
    """The host's plugin sections into the system prompt; the ones that failed, as events."""
    if d.sections is None or not len(d.sections):
        return []
    given = SectionInput(t.scope, t.message, t.require_session().id, d.config.prompt_mode)
    t.system, rendered = await d.sections.apply(t.require_system(), given)
    return rendered.failures
