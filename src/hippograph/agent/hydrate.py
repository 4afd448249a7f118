"""Hydrate: recall + spreading activation into a token-budgeted, scrubbed memory context, and
the prompt stage of a turn built on it (:func:`build_prompt`).

The layers come from triage: recall searches the semantic, episodic and procedural layers the
verdict keeps; working memory adds the last turns verbatim. Everything fits in the token
budget. (Prospective triggers are evaluated beside hydration, in their own prompt section:
:mod:`hippograph.agent.reminders`.) A failing recall never fails the turn: the failure becomes an
:class:`~hippograph.agent.events.StageFailed` and the context falls back to working memory.

The prompt stage recalls (full prompt mode; in JIT mode the model asks through the
``hydrate_context`` tool instead, see :mod:`hippograph.agent.tools`), evaluates the scope's
triggers (each fired one a ``TriggerFired`` event), reads the persona and summarises older
turns (when their modes are on), all at once; then renders the system prompt with its
sections (:mod:`hippograph.agent.prompts.sections`: the built-in persona, earlier-turns and
reminders sections, then the host's) and the messages of the first model call.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import JsonValue

from hippograph.agent.events import ActivatedNode, Activation, ActivationPath, AgentEvent, StageFailed
from hippograph.agent.prompts import full_system_prompt, jit_system_prompt
from hippograph.agent.prompts.sections import PromptSections, SectionInput, built_in_sections
from hippograph.agent.reminders import PersonaSeeder, Reminders, reminders
from hippograph.agent.sessions import Session, turn_text
from hippograph.agent.stages import Out, Stage
from hippograph.agent.summaries import TurnSummarizer
from hippograph.embeddings.memo import embedding_memo
from hippograph.layers.working import SUMMARY_MARK
from hippograph.llm.types import ChatMessage, SystemPrompt
from hippograph.models import Layer
from hippograph.retrieval.bookkeeping import HeldBookkeeping, holding
from hippograph.retrieval.context import MemoryContext, approx_tokens
from hippograph.retrieval.types import RecallResult
from hippograph.scrub import scrub_text

if TYPE_CHECKING:
    from hippograph.agent.config import AgentConfig, HydrateSettings
    from hippograph.agent.intent import TriageDecision
    from hippograph.agent.observability import StageClock
    from hippograph.layers.turn_reads import TurnReads
    from hippograph.memory import Memory
    from hippograph.scope import Scope

log = logging.getLogger(__name__)

RECALL_LAYERS = (Layer.SEMANTIC, Layer.EPISODIC, Layer.PROCEDURAL)
MAX_LABEL_CHARS = 120
T = TypeVar("T")


@dataclass
class Hydration:
    """The memory context of one hydration and how it came about.

    Attributes:
        text: The context text (empty when nothing was found).
        activation: The Activation event (None when recall did not run or failed).
        errors: StageFailed events of the stages that failed (the context is then partial).
        ms: Wall time of the hydration.
    """

    text: str = ""
    activation: Activation | None = None
    recall: RecallResult | None = None
    context: MemoryContext | None = None
    errors: list[StageFailed] = field(default_factory=list)
    ms: float = 0.0


async def hydrate(
    memory: Memory,
    settings: HydrateSettings,
    scope: Scope,
    query: str,
    layers: Collection[Layer] = tuple(Layer),
    *,
    top_k: int | None = None,
    session_id: str | None = None,
    turn_reads: TurnReads | None = None,
    bookkeeping: HeldBookkeeping | None = None,
) -> Hydration:
    """Recall for ``query`` within ``layers`` and render the context (the working
    memories from ``turn_reads`` when given: the turn's combined read, whether recall runs
    or only the last turns are shown). With ``bookkeeping``, the recall's writes (access
    counts, pending links) wait in it for the caller to release them.

    Never raises for a store or retrieval failure; those are in ``errors``.
    """
    started = time.perf_counter()
    s = settings
    out = Hydration()
    query = query.strip()[: s.max_query_chars]
    layers = [layer for layer in layers if layer in s.enabled_layers]
    wanted = [layer for layer in RECALL_LAYERS if layer in layers]
    working = s.include_working and Layer.WORKING in layers
    recall_layers = None if len(wanted) == len(RECALL_LAYERS) else wanted

    async def recall() -> tuple[RecallResult, MemoryContext] | None:
        if not wanted or not query:
            return None
        capability = memory.for_scope(
            scope, limit=s.top_k, token_budget=s.token_budget, recent_turns=s.working_memory_raw_turns
        )
        with holding(bookkeeping):
            found = await capability.recall(
                query, layers=recall_layers, limit=top_k, include_working=working, session_id=session_id,
                turn_reads=turn_reads,
            )  # fmt: skip
        return found.result, found.context

    recalled = await guarded("hydrate", recall(), out.errors)
    used = 0
    lines: list[str] = []
    if recalled is not None:
        out.recall, out.context = recalled
        out.activation = activation_event(out.recall, out.context, s.max_activation_nodes)
        out.errors.extend(  # what degraded: the context holds what the other parts found
            StageFailed(stage=f"hydrate.{d.part}", error_type=d.error_type, message=d.message)
            for d in out.recall.degraded
        )
        if out.context.text:
            lines.append(out.context.text)
        used = out.context.tokens
    elif working:  # recall off for this verdict, or failed: the last turns still help
        last = memory.last_turns(scope, session_id=session_id, turn_reads=turn_reads, n=s.working_memory_raw_turns)
        nodes = await guarded("working", last, out.errors) or []
        for node in nodes:
            line = memory.scrubber.text(memory.render_working(node))
            cost = approx_tokens(line) + 1
            if used + cost <= s.token_budget:
                lines.append(line)
                used += cost
    out.text = "\n".join(lines)
    out.ms = (time.perf_counter() - started) * 1000.0
    return out


async def guarded(stage: str, work: Awaitable[T], errors: list[StageFailed]) -> T | None:
    """The result of ``work``, or None with its failure appended to ``errors`` as a StageFailed."""
    try:
        return await work
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.warning("%s failed: %s", stage, type(exc).__name__, exc_info=True)
        errors.append(StageFailed.from_exception(stage, exc))
        return None


def activation_event(result: RecallResult, context: MemoryContext | None, max_nodes: int) -> Activation:
    """The Activation event of a recall: recalled and activated nodes, paths, details."""
    nodes: list[ActivatedNode] = []
    seen: set[str] = set()
    for item in result.items:
        seen.add(item.node.id)
        nodes.append(
            ActivatedNode(
                id=item.node.id,
                score=round(item.score, 6),
                layer=item.node.layer.value,
                label=scrub_text(item.node.label)[:MAX_LABEL_CHARS] or None,
                hop=max(0, len(item.path) - 1),
                details={
                    "recalled": True,
                    "channels": {c.value: r for c, r in item.channels.items()},
                },
            )
        )
    log_ = result.activation
    for node in log_.activated:  # only as many as the event lists: the log may hold thousands
        if len(nodes) >= max_nodes:
            break
        if node.id not in seen:
            seen.add(node.id)
            nodes.append(
                ActivatedNode(
                    id=node.id,
                    score=round(node.activation, 6),
                    hop=max(0, node.hop),
                    details={"recalled": False},
                )
            )
    paths = [
        ActivationPath(
            node_ids=[step.node_id for step in node.path],
            relationships=[step.relationship or "" for step in node.path[1:]],
            score=round(node.activation, 6),
        )
        for node in itertools.islice((n for n in log_.activated if len(n.path) > 1), max_nodes)
    ]
    details: dict[str, JsonValue] = {
        "seeds": len(log_.seeds),
        "pending_connections": len(log_.pending),
        "capped": log_.capped,
        "timings_ms": _rounded(result.timings.model_dump()),
    }
    if context is not None:
        details.update(
            context_tokens=context.tokens,
            budget_tokens=context.budget,
            in_context=[e.id for e in context.entries],
            dropped=list(context.dropped),
        )
    return Activation(nodes=nodes[:max_nodes], paths=paths[:max_nodes], details=details)


def _rounded(values: dict[str, Any]) -> dict[str, JsonValue]:
    return {k: round(float(v), 3) for k, v in values.items()}


@dataclass(frozen=True)
class Prompt:
    """The prompt stage's output: the system prompt, the first call's messages, and the memory
    context recalled for it (none in JIT mode or with hydration off)."""

    system: SystemPrompt
    messages: list[ChatMessage]
    memory_texts: tuple[str, ...] = ()


async def build_prompt(
    memory: Memory,
    scope: Scope,
    message: str,
    session: Session,
    decision: TriageDecision,
    *,
    config: AgentConfig,
    jit: bool,
    persona: PersonaSeeder,
    summarizer: TurnSummarizer,
    sections: PromptSections,
    clock: StageClock,
    out: Out[Prompt],
    bookkeeping: HeldBookkeeping | None = None,
) -> AsyncIterator[AgentEvent]:
    """The prompt stage: recall, triggers, persona and summaries at once (independent reads,
    each on its own session); then their events in a fixed order (recall's failures and its
    Activation, then the other parts' failures, then the triggers that fired), then the prompt
    and its sections' failures. With ``bookkeeping``, recall's writes wait in it (the turn
    releases them after the model's reply: they are not on the way to the model)."""
    c = config
    layers = decision.layers
    recall = c.hydrate.enabled and not jit
    failed: tuple[list[StageFailed], list[StageFailed], list[StageFailed], list[StageFailed]] = ([], [], [], [])
    # recall and the triggers by meaning embed the message once between them
    with clock.time(Stage.HYDRATE), embedding_memo():
        reads = memory.turn_reads(  # started at once in one statement, each only when its part runs
            scope,
            working=recall and c.hydrate.include_working and Layer.WORKING in layers,  # as hydrate shows them
            prospective=c.hydrate.include_triggers and Layer.PROSPECTIVE in layers,
            persona=c.persona.enabled,
        )
        try:
            hydration, due, persona_text, earlier = await asyncio.gather(
                hydrate(
                    memory,
                    c.hydrate,
                    scope,
                    message,
                    layers,
                    session_id=session.id,
                    turn_reads=reads,
                    bookkeeping=bookkeeping,
                )
                if recall
                else _nothing(),
                guarded("hydrate.triggers", _reminders(memory, c, scope, message, layers, reads, session), failed[0]),
                guarded("hydrate.persona", persona.text(memory, scope, reads), failed[1])
                if c.persona.enabled
                else _nothing(),
                guarded(
                    "hydrate.summaries", _earlier(memory, c, scope, session, layers, summarizer, failed[3]), failed[2]
                ),
            )
        finally:
            reads.close()
    memory_texts: tuple[str, ...] = ()
    memory_text = ""
    if hydration is not None:
        for error in hydration.errors:
            yield error
        if hydration.activation is not None:
            yield hydration.activation
        memory_text = hydration.text
        memory_texts = (memory_text,)
    due = due or Reminders()
    for error in (*failed[0], *failed[1], *failed[2], *failed[3]):
        yield error
    for fired in due.events:
        yield fired

    with clock.time(Stage.PROMPT):
        if jit:
            system = jit_system_prompt(
                scope=scope.key, agent_name=c.agent_name, agent_description=c.agent_description,
                cache=c.cache_system_prompt,
            )  # fmt: skip
        else:
            system = full_system_prompt(
                memory_text, scope=scope.key, agent_name=c.agent_name,
                agent_description=c.agent_description, cache=c.cache_system_prompt,
            )  # fmt: skip
        built_in = built_in_sections(persona=persona_text or "", earlier=earlier or "", reminders=due.text)
        given = SectionInput(scope, message, session.id, c.prompt_mode)
        system, rendered = await sections.apply(system, given, built_in=built_in)
        history = session.messages() if c.sessions.history_turns else []
        out.value = Prompt(system, [*history, ChatMessage(role="user", content=message)], memory_texts)
    for failure in rendered.failures:
        yield failure


async def _nothing() -> None:
    return None


async def _reminders(
    memory: Memory,
    c: AgentConfig,
    scope: Scope,
    message: str,
    layers: Collection[Layer],
    reads: TurnReads,
    session: Session,
) -> Reminders:
    s = c.hydrate
    if not s.include_triggers or Layer.PROSPECTIVE not in layers:
        return Reminders()
    return await reminders(
        memory, scope, message, max_shown=s.max_triggers, turn_reads=reads, settings=c.triggers, session=session
    )


async def _earlier(
    memory: Memory,
    c: AgentConfig,
    scope: Scope,
    session: Session,
    layers: Collection[Layer],
    summarizer: TurnSummarizer,
    failures: list[StageFailed],
) -> str:
    """The earlier-turns section's text: the compacted session, then working memory's older
    entries; the summarizer's failures are appended to ``failures`` (this turn's own)."""
    if session.overflow and c.sessions.compaction != "off":
        folded = [session.summary, *(turn_text(turn) for turn in session.overflow)]
        session.summary = _kept(
            await summarizer.summarize(folded, c.sessions.compaction, stage="hydrate.compaction"), failures
        )
        session.overflow = []
    lines = [f"Summary of the turns before these messages: {session.summary}"] if session.summary else []
    mode = c.hydrate.working_summary
    if mode != "off" and c.hydrate.include_working and Layer.WORKING in layers:
        older = await memory.older_working(scope, session_id=session.id, verbatim=c.hydrate.working_memory_raw_turns)
        summary = await summarizer.summarize([m.content for m in older], mode, stage="hydrate.working_summary")
        text = _kept(summary, failures)
        if text:
            lines.append(SUMMARY_MARK + text)
    return "\n".join(lines)


def _kept(summary: tuple[str, StageFailed | None], failures: list[StageFailed]) -> str:
    text, failure = summary
    if failure is not None:
        failures.append(failure)
    return text
