"""The agent turn: triage → hydrate → model (streamed, with tools) → fabrication check →
extraction → background consolidation, as one async iterator of typed events.

Event order of a turn::

    [Error …]                      background failures of the session's previous turn
    [IntentClassified] [ToolRoutingDecision]
    [Error …] [Activation]         hydrate (full prompt mode)
    MessageStart … Usage           a model call (ThinkingDelta, TextDelta, ToolCall…)
    MessageEnd ToolResult …        after a call that asked for tools; [Activation] per
    MessageStart … Usage           hydrate_context call; then the next model call
    [FabricationDetected]          (revise: MessageEnd, then the revision's call)
    [MemoryExtracted] [ConsolidationScheduled]
    MessageEnd                     always last: the turn is over

Only a model failure ends a turn without a reply (an ``Error`` with ``recoverable=False``,
then ``MessageEnd`` with stop reason ``error``; :meth:`Agent.run` re-raises it). Failures
of recall, activation, tools and consolidation are ``Error`` events and the reply arrives.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Collection, Sequence
from typing import TYPE_CHECKING

from hippograph.agent.background import BackgroundConsolidation, BackgroundReport, TurnRecord
from hippograph.agent.config import AgentConfig
from hippograph.agent.events import (
    AgentEvent,
    ConsolidationScheduled,
    Error,
    FabricationDetected,
    IntentClassified,
    MemoryExtracted,
    ToolResult,
    ToolRoutingDecision,
)
from hippograph.agent.extraction import extract_memory_ops
from hippograph.agent.fabrication import FabricationChecker, FabricationMode
from hippograph.agent.hydrate import Hydrator
from hippograph.agent.observability import AgentHooks, HookSet, StageClock
from hippograph.agent.prompts import (
    HYDRATE_CONTEXT_TOOL_NAME,
    NO_MEMORIES,
    full_system_prompt,
    hydrate_context_tool,
    jit_system_prompt,
)
from hippograph.agent.response import AgentResponse
from hippograph.agent.sessions import Session, SessionManager, Turn
from hippograph.agent.tools import AgentTool, ToolOutcome, run_tool
from hippograph.agent.triage import IntentClassifier, TriageDecision, TriageMode, triage
from hippograph.agent.turn_state import TurnState
from hippograph.agent.visible import VisibleTextFilter
from hippograph.errors import InvalidInputError
from hippograph.llm.accumulate import ResponseAccumulator
from hippograph.llm.events import (
    MessageEnd,
    MessageStart,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from hippograph.llm.provider import ModelProvider
from hippograph.llm.scripted import ScriptedModel
from hippograph.llm.types import (
    ChatMessage,
    ModelRequest,
    ModelResponse,
    SystemPrompt,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from hippograph.models import Layer, check_id
from hippograph.ops import MemoryOp
from hippograph.scope import Scope
from hippograph.scrub import scrub_text

if TYPE_CHECKING:
    from hippograph.consolidation import SleepConsolidator
    from hippograph.layers import MemoryOrchestrator

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 100_000
MAX_HYDRATE_TOP_K = 20
KEEP_BLOCK_NOTE = "\nKeep your <MEMORY_EXTRACT> block, if you had one, at the end of the rewritten reply."
_HOLDING_MODES = frozenset({FabricationMode.REVISE, FabricationMode.REFUSE})


class Agent:
    """An LLM agent with long-term memory in Neo4j.

    Args:
        memory: The memory the agent recalls from and writes to.
        model: The model (``AnthropicModel``, ``ScriptedModel`` or any ``ModelProvider``).
        config: Every stage's settings; the reference defaults when omitted.
        consolidator: Runs quick naps every N turns of a scope (N is the consolidator's
            ``turns_between_naps``); None: no naps.
        hooks: Observability callbacks (stage timings, usage, events).
        tools: Tools the model may call, each a spec and an async handler.

    Raises:
        InvalidInputError: Two tools share a name, or a tool takes ``hydrate_context``.

    Example:
        >>> agent = Agent(memory, AnthropicModel(api_key=key))  # doctest: +SKIP
        >>> reply = await agent.run(scope, "My dog is called Rex.")  # doctest: +SKIP
        >>> async for event in agent.stream(scope, "What's my dog called?",
        ...                                 session_id=reply.session_id):  # doctest: +SKIP
        ...     print(event.type)
        >>> await agent.drain()  # doctest: +SKIP
    """

    def __init__(
        self,
        memory: MemoryOrchestrator,
        model: ModelProvider,
        config: AgentConfig | None = None,
        *,
        consolidator: SleepConsolidator | None = None,
        hooks: Sequence[AgentHooks] = (),
        tools: Sequence[AgentTool] = (),
    ) -> None:
        self.memory = memory
        self.model = model
        self.config = config or AgentConfig()
        self.consolidator = consolidator
        self._hooks = HookSet(hooks)
        self._tools: dict[str, AgentTool] = {}
        for tool in tools:
            if tool.name == HYDRATE_CONTEXT_TOOL_NAME or tool.name in self._tools:
                raise InvalidInputError("tools", f"tool name {tool.name!r} is taken")
            self._tools[tool.name] = tool
        c = self.config
        self._hydrator = Hydrator(memory, c.hydrate)
        self._classifier = IntentClassifier()
        self._triage_config = c.triage.as_triage_config()
        self._checker = FabricationChecker(
            c.fabrication.mode,
            refuse_min_confidence=c.fabrication.refuse_min_confidence,
            safe_reply=c.fabrication.safe_reply,
        )
        self.sessions = SessionManager(memory, c.sessions)
        self._background = BackgroundConsolidation(memory, consolidator, c.consolidation, self._background_done)

    @staticmethod
    def offline_demo_model(*, delay: float = 0.0) -> ScriptedModel:
        """A scripted model for running offline that reacts to the user's message (see
        :func:`hippograph.agent.demo.demo_model`)."""
        from hippograph.agent.demo import demo_model

        return demo_model(delay=delay)

    # -- public ---------------------------------------------------------------------------
    def stream(self, scope: Scope, message: str, *, session_id: str | None = None) -> AsyncIterator[AgentEvent]:
        """Run one turn, streaming its events (see the module docstring for their order).

        Turns of one session run one at a time: the session is held while the stream is
        iterated, so consume it to the end or close it (``contextlib.aclosing``).

        Raises:
            InvalidInputError: At once, for a bad scope, message or session id.
        """
        turn = self._start(scope, message, session_id)
        return self._events(turn)

    async def run(self, scope: Scope, message: str, *, session_id: str | None = None) -> AgentResponse:
        """Run one turn and return the reply with everything the turn did.

        Raises:
            InvalidInputError: A bad scope, message or session id.
            ModelError: The model failed (the only failure that loses the reply).
        """
        turn = self._start(scope, message, session_id)
        events = [event async for event in self._events(turn)]
        if turn.fatal is not None:
            raise turn.fatal
        return turn.response(events)

    async def drain(self) -> list[BackgroundReport]:
        """Wait for all background work (consolidation, recall bookkeeping): for tests and
        shutdown. Returns the consolidation reports finished since the last drain."""
        reports = await self._background.drain()
        await self.memory.engine.drain()
        return reports

    @property
    def pending_background(self) -> int:
        """Consolidation tasks still running."""
        return self._background.pending

    # -- the turn -------------------------------------------------------------------------
    def _start(self, scope: Scope, message: str, session_id: str | None) -> TurnState:
        if not isinstance(scope, Scope):
            raise InvalidInputError("scope", "must be a Scope")
        if not isinstance(message, str) or not message.strip():
            raise InvalidInputError("message", "must be a non-empty string")
        if len(message) > MAX_MESSAGE_CHARS:
            raise InvalidInputError("message", f"longer than {MAX_MESSAGE_CHARS} characters")
        if session_id is not None:
            check_id(session_id, "session_id")
        return TurnState(scope, message, session_id, StageClock(self._hooks))

    async def _events(self, turn: TurnState) -> AsyncIterator[AgentEvent]:
        try:
            async for event in self._turn(turn):
                turn.observe(event)
                self._hooks.event(event)
                if isinstance(event, Usage):
                    self._hooks.usage(event.totals())
                yield event
        finally:
            turn.clock.report()

    async def _turn(self, t: TurnState) -> AsyncIterator[AgentEvent]:
        with t.clock.time("session"):
            try:
                session = await self.sessions.open(t.scope, t.session_id)
                resume_error = None
            except Exception as exc:  # the graph is down: chat on without the history
                log.warning("session resume failed: %s", type(exc).__name__, exc_info=True)
                session = await self.sessions.open(t.scope, t.session_id, resume=False)
                resume_error = Error.from_exception("session", exc)
            t.session = session
        if resume_error is not None:
            yield resume_error
        started = time.perf_counter()
        async with session.lock:
            t.clock.add("session", (time.perf_counter() - started) * 1000.0)
            for error in session.take_errors():
                yield error
            async for event in self._locked_turn(t, session):
                yield event

    async def _locked_turn(self, t: TurnState, session: Session) -> AsyncIterator[AgentEvent]:
        c = self.config
        jit = c.prompt_mode == "jit" and c.hydrate.enabled
        with t.clock.time("triage"):
            specs = [tool.spec for tool in self._tools.values()]
            if jit:
                specs.append(hydrate_context_tool())
            decision = triage(t.message, specs, self._triage_config, classifier=self._classifier)
        if decision.intent is not None:
            yield IntentClassified.from_result(decision.intent, decision.intent_mode)
        if c.triage.tool_routing_mode is not TriageMode.OFF and specs:
            yield ToolRoutingDecision.from_routing(decision.routing)

        memory_text = ""
        if c.hydrate.enabled and not jit:
            with t.clock.time("hydrate"):
                hydration = await self._hydrator.hydrate(t.scope, t.message, decision.layers)
            for error in hydration.errors:
                yield error
            if hydration.activation is not None:
                yield hydration.activation
            memory_text = hydration.text
            t.memory_texts.append(memory_text)

        with t.clock.time("prompt"):
            system = self._system_prompt(t.scope, memory_text, jit=jit)
            history = session.messages() if c.sessions.history_turns else []
            messages = [*history, ChatMessage(role="user", content=t.message)]

        try:
            async for event in self._model_loop(t, system, messages, decision):
                yield event
        except Exception as exc:
            log.warning("%s failed: %s", t.stage, type(exc).__name__, exc_info=True)
            t.fatal = exc
            yield Error.from_exception(t.stage, exc, recoverable=False)
            yield MessageEnd(message_id=t.message_id, stop_reason="error")
            return

        assert t.last_end is not None
        yield t.last_end

    def _system_prompt(self, scope: Scope, memory_text: str, *, jit: bool) -> SystemPrompt:
        c = self.config
        if jit:
            return jit_system_prompt(
                scope=scope.key, agent_name=c.agent_name, agent_description=c.agent_description,
                cache=c.cache_system_prompt,
            )  # fmt: skip
        return full_system_prompt(
            memory_text, scope=scope.key, agent_name=c.agent_name,
            agent_description=c.agent_description, cache=c.cache_system_prompt,
        )  # fmt: skip

    async def _model_loop(
        self, t: TurnState, system: SystemPrompt, messages: list[ChatMessage], decision: TriageDecision
    ) -> AsyncIterator[AgentEvent]:
        """Model calls and tool rounds, then the checks; leaves the final MessageEnd in
        ``t.last_end`` for the caller to send last."""
        c = self.config
        tools = decision.routing.tools
        hold = self._checker.mode in _HOLDING_MODES
        rounds = 0
        while True:
            async for event in self._call(t, self._request(system, messages, tools), hold=hold):
                yield event
            response = t.last
            assert response is not None
            calls = response.tool_calls
            if response.stop_reason != "tool_use" or not calls:
                break
            if rounds >= c.tools.max_rounds:
                yield Error(
                    stage="tools", error_type="ToolRoundLimit",
                    message=f"the model asked for tools again after {rounds} rounds; stopped",
                )  # fmt: skip
                break
            rounds += 1
            for delta in t.held:
                yield delta
            assert t.last_end is not None
            yield t.last_end
            t.stage = "tools"
            with t.clock.time("tools"):
                outcomes = await asyncio.gather(*(self._run_call(t, call, decision.layers) for call in calls))
            results: list[ToolResultBlock] = []
            for call, (outcome, extra) in zip(calls, outcomes, strict=True):
                for event in extra:
                    yield event
                yield ToolResult(
                    tool_use_id=call.id, name=call.name, content=outcome.content,
                    is_error=outcome.is_error,
                )  # fmt: skip
                results.append(
                    ToolResultBlock(tool_use_id=call.id, content=outcome.content or "(no output)",
                                    is_error=outcome.is_error)
                )  # fmt: skip
            messages = [
                *messages,
                _assistant(response),
                ChatMessage(role="user", content=list(results)),
            ]

        async for event in self._finish(t, system, messages, tools, hold=hold):
            yield event

    async def _finish(
        self,
        t: TurnState,
        system: SystemPrompt,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        *,
        hold: bool,
    ) -> AsyncIterator[AgentEvent]:
        c = self.config
        t.stage = "finish"
        with t.clock.time("extraction"):
            extraction = extract_memory_ops(_joined(t.raw_texts), max_ops=c.extraction.max_ops)
        reply, released = extraction.reply.strip(), t.held
        refused = False
        if self._checker.mode is not FabricationMode.OFF:
            with t.clock.time("fabrication"):
                report = self._checker.check(
                    reply,
                    tool_results=[r.content for r in t.tool_results],
                    memory_context="\n".join(t.memory_texts),
                    user_message="\n".join([*(m.text for m in messages if m.role == "user")]),
                )
            detected = FabricationDetected.from_report(report)
            if detected is not None:
                yield detected
            if report.action == "refused":
                refused, reply = True, report.reply
                released = [TextDelta(index=_text_index(t), text=reply)]
            elif report.action == "revise" and report.revision_instructions:
                for event in self._release(t):
                    yield event
                draft = t.last
                assert draft is not None
                revision = [
                    *messages,
                    _assistant(draft),
                    ChatMessage(role="user", content=report.revision_instructions + KEEP_BLOCK_NOTE),
                ]
                t.raw_texts = []  # the revision replaces the draft
                async for event in self._call(t, self._request(system, revision, tools), hold=False):
                    yield event
                with t.clock.time("extraction"):
                    revised = extract_memory_ops(_joined(t.raw_texts), max_ops=c.extraction.max_ops)
                reply = revised.reply.strip()
                if revised.strategy is not None:
                    extraction = revised
                t.stage = "finish"
                released = []
        for delta in released:
            yield delta
        t.held = []
        t.reply = reply

        ops = list(extraction.ops) if c.extraction.enabled and not refused else []
        if c.extraction.enabled:
            event = MemoryExtracted.from_result(extraction)
            if refused:
                reason = "the draft was refused by the fabrication check; its ops were not applied"
                event = event.model_copy(update={"ops": [], "reason": reason})
            yield event

        assert t.session is not None
        with t.clock.time("schedule"):
            scheduled = self._schedule(t, t.session, reply, ops)
            if c.sessions.history_turns:
                t.session.record(Turn(scrub_text(t.message), scrub_text(reply)))
            else:
                t.session.turns += 1
        if scheduled is not None:
            yield scheduled

    def _release(self, t: TurnState) -> list[AgentEvent]:
        """Close the held draft's message (its text is never shown)."""
        t.held = []
        return [t.last_end] if t.last_end is not None else []

    def _schedule(
        self, t: TurnState, session: Session, reply: str, ops: list[MemoryOp]
    ) -> ConsolidationScheduled | None:
        c = self.config.consolidation
        if not c.enabled:
            return None
        nap = False
        if c.quick_naps and self.consolidator is not None:
            nap = self.consolidator.note_turn(t.scope)
        record = TurnRecord(
            scope=t.scope, session=session, user=t.message, reply=reply,
            thinking="".join(t.thinking), ops=list(ops), quick_nap=nap,
        )  # fmt: skip
        task_id = self._background.schedule(record)
        return ConsolidationScheduled(op_count=len(ops), quick_nap=nap, task_id=task_id)

    def _request(self, system: SystemPrompt, messages: list[ChatMessage], tools: list[ToolSpec]) -> ModelRequest:
        c = self.config
        return ModelRequest(
            system=system, messages=messages, tools=tools, max_tokens=c.max_tokens,
            thinking_budget=c.thinking_budget, model=c.model,
        )  # fmt: skip

    async def _call(self, t: TurnState, request: ModelRequest, *, hold: bool) -> AsyncIterator[AgentEvent]:
        """One model call, streamed. Text passes the memory-block filter (and is held back
        when ``hold``); the MessageEnd is kept in ``t.last_end`` for the caller to place."""
        t.model_calls += 1
        t.stage = "model"
        t.held, t.last_end = [], None
        acc = ResponseAccumulator()
        visible = VisibleTextFilter()
        index = 0
        stream = self.model.stream(request) if self.config.stream_model else _replayed(self.model, request)
        try:
            while True:
                started = time.perf_counter()
                try:
                    event = await anext(stream)
                except StopAsyncIteration:
                    break
                finally:
                    t.clock.add("model", (time.perf_counter() - started) * 1000.0)
                acc.add(event)
                if isinstance(event, TextDelta):
                    index = event.index
                    text = visible.feed(event.text)
                    if text:
                        delta = TextDelta(index=index, text=text)
                        if hold:
                            t.held.append(delta)
                        else:
                            yield delta
                elif isinstance(event, MessageEnd):
                    t.last_end = event
                else:
                    yield event
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        tail = visible.flush()
        if tail:
            delta = TextDelta(index=index, text=tail)
            if hold:
                t.held.append(delta)
            else:
                yield delta
        response = acc.response()
        t.last = response
        t.raw_texts.append(response.text)
        if t.last_end is None:
            t.last_end = MessageEnd(message_id=response.id, stop_reason=response.stop_reason)

    async def _run_call(
        self, t: TurnState, call: ToolUseBlock, layers: Collection[Layer]
    ) -> tuple[ToolOutcome, list[AgentEvent]]:
        if call.name == HYDRATE_CONTEXT_TOOL_NAME and self.config.prompt_mode == "jit":
            return await self._hydrate_tool(t, call, layers)
        tool = self._tools.get(call.name)
        if tool is None:
            return ToolOutcome(f"unknown tool {call.name!r}", is_error=True), []
        s = self.config.tools
        outcome = await run_tool(tool, call.input, timeout=s.timeout, max_chars=s.max_result_chars)
        return outcome, []

    async def _hydrate_tool(
        self, t: TurnState, call: ToolUseBlock, layers: Collection[Layer]
    ) -> tuple[ToolOutcome, list[AgentEvent]]:
        args = call.input
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolOutcome("hydrate_context needs a non-empty 'query' string", True), []
        wanted = set(layers)
        asked = args.get("layers")
        if isinstance(asked, list) and asked:
            names = {layer.value: layer for layer in Layer}
            wanted &= {names[a] for a in asked if isinstance(a, str) and a in names}
        top_k = args.get("top_k")
        k = top_k if isinstance(top_k, int) and 1 <= top_k <= MAX_HYDRATE_TOP_K else None
        hydration = await self._hydrator.hydrate(t.scope, query, wanted, top_k=k)
        t.memory_texts.append(hydration.text)
        events: list[AgentEvent] = [*hydration.errors]
        if hydration.activation is not None:
            events.append(hydration.activation)
        if hydration.errors and not hydration.text:
            return ToolOutcome("memory is unavailable right now", is_error=True), events
        return ToolOutcome(hydration.text or NO_MEMORIES), events

    # -- background -----------------------------------------------------------------------
    def _background_done(self, record: TurnRecord, report: BackgroundReport) -> None:
        self._hooks.stage("consolidate", report.ms)
        errors = list(report.errors) + [
            Error(stage="scrub", error_type="InvalidOp", message=f"op {s.index}: {s.reason}")
            for s in report.skipped_ops
        ]
        for error in errors:
            record.session.report(error)
            self._hooks.event(error)


async def _replayed(model: ModelProvider, request: ModelRequest) -> AsyncIterator[ModelEvent]:
    """A complete (non-streamed) call, replayed as the events a stream would have sent."""
    response = await model.complete(request)
    yield MessageStart(message_id=response.id, model=response.model)
    for index, block in enumerate(response.content):
        if isinstance(block, ThinkingBlock):
            yield ThinkingDelta(index=index, text=block.thinking)
            if block.signature:
                yield ThinkingSignature(index=index, signature=block.signature)
        elif isinstance(block, TextBlock):
            yield TextDelta(index=index, text=block.text)
        elif isinstance(block, ToolUseBlock):
            yield ToolCallStart(index=index, id=block.id, name=block.name)
            yield ToolCallDelta(index=index, id=block.id, partial_json=json.dumps(block.input))
    yield Usage.of(response.usage)
    yield MessageEnd(message_id=response.id, stop_reason=response.stop_reason)


def _assistant(response: ModelResponse) -> ChatMessage:
    """The reply as an assistant message, without empty text blocks (the API rejects them)."""
    content = [b for b in response.content if not (isinstance(b, TextBlock) and not b.text)]
    return ChatMessage(role="assistant", content=content or [TextBlock(text="(no reply)")])


def _joined(texts: list[str]) -> str:
    return "\n\n".join(text.strip() for text in texts if text.strip())


def _text_index(t: TurnState) -> int:
    if t.held:
        return t.held[0].index
    response = t.last
    if response is not None:
        for i, block in enumerate(response.content):
            if isinstance(block, TextBlock):
                return i
    return 0
