"""The agent turn: triage → hydrate → model (streamed, with tools) → fabrication check →
extraction → background consolidation, as one async iterator of typed events.

Event order of a turn::

    [StageFailed …]                background failures of the session's previous turn
    [StageFailed …]                MCP servers that could not be reached (their tools left out)
    [IntentClassified] [ToolRoutingDecision]
    [StageFailed …] [Activation]   hydrate (full prompt mode)
    MessageStart … Usage           a model call (ThinkingDelta, TextDelta, ToolCall…)
    MessageEnd ToolResult …        after a call that asked for tools; [Activation] per
    MessageStart … Usage           hydrate_context call; then the next model call
    [FabricationDetected]          (revise: MessageEnd, then the revision's call;
    [FabricationBlocked]           refuse: the safe reply's TextDelta follows)
    [MemoryExtracted] [ConsolidationScheduled]
    MessageEnd                     always last: the turn is over

Only a model failure ends a turn without a reply (a ``StageFailed`` with
``recoverable=False``, then ``MessageEnd`` with stop reason ``error``; :meth:`Agent.run`
re-raises it). Failures of recall, activation, tools and consolidation are ``StageFailed``
events and the reply arrives. Each stage is one function of the module of its concern (see
:mod:`hippograph.agent.stages` for the table); this class calls them in order, handing each
stage's typed output to the next.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from hippograph.agent.background import BackgroundConsolidation, BackgroundReport, TurnRecord, record_turn
from hippograph.agent.budget import CallRecords, TokenBudget, metered
from hippograph.agent.config import AgentConfig
from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.fabrication import HOLDING_MODES, Checked, FabricationChecker, check_draft
from hippograph.agent.hydrate import Prompt, build_prompt
from hippograph.agent.intent import TriageMode
from hippograph.agent.mcp_client import McpTools
from hippograph.agent.model_loop import Draft, ModelCaller, run_model_loop
from hippograph.agent.observability import AgentHooks, HookSet, StageClock
from hippograph.agent.ops_block import settle_ops
from hippograph.agent.prompts.sections import PromptSections
from hippograph.agent.reminders import PersonaSeeder
from hippograph.agent.response import AgentResponse
from hippograph.agent.sessions import Session, SessionManager, held, open_session
from hippograph.agent.stages import Out, Stage, StageError
from hippograph.agent.summaries import TurnSummarizer
from hippograph.agent.telemetry import TelemetrySink
from hippograph.agent.tool_capabilities import ToolCapability, Tools
from hippograph.agent.tools import AgentTool, HydrateTool, by_name
from hippograph.agent.triage import IntentClassifier, Triaged, run_triage
from hippograph.agent.turn import TurnLog
from hippograph.errors import InvalidInputError
from hippograph.llm.events import MessageEnd, Usage
from hippograph.llm.provider import ModelProvider
from hippograph.llm.spans import usage_attributes
from hippograph.memory.warm import WARM_SCOPE, WarmUp
from hippograph.models import check_id
from hippograph.retrieval.checks import check_text
from hippograph.scope import Scope
from hippograph.tracing import SCOPE_KEY, AttributeValue, Status, StatusCode, in_span, tracer

if TYPE_CHECKING:
    from hippograph.consolidation import SleepConsolidator
    from hippograph.memory import Extractor, Memory

log = logging.getLogger(__name__)
WARM_SESSION = "hippograph-warm-up"
"""The session id :meth:`Agent.warm` resumes (none has it: it reads nothing back)."""

MAX_MESSAGE_CHARS = 100_000


class Agent:
    """An LLM agent with long-term memory in Neo4j.

    Args:
        memory: The memory the agent recalls from and writes to.
        model: The model (``AnthropicModel``, ``ScriptedModel`` or any ``ModelProvider``).
        config: Every stage's settings; the defaults when omitted.
        consolidator: Runs quick naps every N turns of a scope (N is the consolidator's
            ``turns_between_naps``, 10 by default), in the background. None (the default): a
            :class:`~hippograph.consolidation.SleepConsolidator` over the memory's database
            with the default :class:`~hippograph.consolidation.ConsolidationConfig`. No naps:
            ``ConsolidationConfig(turns_between_naps=0)`` or ``AgentConfig.consolidation``'s
            ``quick_naps=False``.
        hooks: Observability callbacks (stage timings, usage, events).
        tools: Tools the model may call, each a spec and an async handler.
        extractor: A separate model that finds memories in each finished exchange, in the
            background, besides the reply's own memory block (see ``ModelExtractor``).
        telemetry: A sink for a summary of every turn, after its consolidation (e.g.
            ``JsonLinesTelemetry(path)``); None (the default): no telemetry.
        prompt_sections: Named sections the host adds to the system prompt, in order, within
            a token budget shared with the built-in sections (see
            :mod:`hippograph.agent.prompts.sections`).
        capabilities: What brings the turn's tools besides ``tools`` (e.g. ``MemoryTools``):
            a turn is offered the tools of every capability registered, for its scope.
            ``config.mcp_servers`` adds one more, ``McpTools`` (named ``mcp``): the tools of
            those MCP servers, through one session per server that :meth:`aclose` closes.
        budget: Model tokens per day per account (by default the root of the turn's scope):
            a turn is refused with ``BudgetExceededError`` before it starts when its account
            is spent, and charged after it ends; None (the default): no budget.
        call_records: Where each model call is recorded under its conversation (the session
            id); None: a :class:`CallRecords` of the agent's own (``agent.call_records``).

    Raises:
        InvalidInputError: Two tools (or two capabilities) share a name, or a tool takes
            ``hydrate_context``.

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
        memory: Memory,
        model: ModelProvider,
        config: AgentConfig | None = None,
        *,
        consolidator: SleepConsolidator | None = None,
        hooks: Sequence[AgentHooks] = (),
        tools: Sequence[AgentTool] = (),
        extractor: Extractor | None = None,
        telemetry: TelemetrySink | None = None,
        prompt_sections: PromptSections | None = None,
        capabilities: Sequence[ToolCapability] = (),
        budget: TokenBudget | None = None,
        call_records: CallRecords | None = None,
    ) -> None:
        if consolidator is None:
            from hippograph.consolidation import SleepConsolidator

            consolidator = SleepConsolidator.for_memory(memory)
        self.memory, self.model = memory, model
        self.consolidator: SleepConsolidator = consolidator
        self.budget = budget
        self.call_records = call_records if call_records is not None else CallRecords()
        self.config = c = config or AgentConfig()
        self._hooks = HookSet(hooks)
        self.sessions = SessionManager(memory, c.sessions)
        self._background = BackgroundConsolidation(
            memory, consolidator, c.consolidation, self._background_done, extractor=extractor, telemetry=telemetry
        )
        mcp = [McpTools(c.mcp_servers, call_timeout=c.tools.timeout)] if c.mcp_servers else []
        self._capabilities = _registered(tools, [*capabilities, *mcp])
        self._mcp_pools = [cap for cap in self._capabilities if isinstance(cap, McpTools)]
        self._triage = c.triage.as_triage_config()
        self._classifier = IntentClassifier()
        self._checker = FabricationChecker(
            c.fabrication.mode, refuse_min_confidence=c.fabrication.refuse_min_confidence,
            safe_reply=c.fabrication.safe_reply,
        )  # fmt: skip
        self._sections = prompt_sections if prompt_sections is not None else PromptSections()
        self._persona = PersonaSeeder(c, consolidator.config.soul_schema)
        self._summarizer = TurnSummarizer(model, c.model)

    # -- public ---------------------------------------------------------------------------
    def stream(
        self, scope: Scope, message: str, *, session_id: str | None = None, charge_to: str | None = None
    ) -> AsyncIterator[AgentEvent]:
        """Run one turn, streaming its events (see the module docstring for their order).

        Turns of one session run one at a time: the session is held while the stream is
        iterated, so consume it to the end or close it (``contextlib.aclosing``).
        ``charge_to``: the budget account to charge (default: the budget's account of
        ``scope``).

        Raises:
            InvalidInputError: At once, for a bad scope, message or session id.
            BudgetExceededError: At the first event, when the turn's account is spent.
        """
        return self._metered(self._start(scope, message, session_id), charge_to)

    async def run(
        self, scope: Scope, message: str, *, session_id: str | None = None, charge_to: str | None = None
    ) -> AgentResponse:
        """Run one turn and return the reply with everything the turn did.

        Raises:
            InvalidInputError: A bad scope, message or session id.
            BudgetExceededError: The turn's budget account is spent (nothing ran).
            ModelError: The model failed (the only failure that loses the reply).
        """
        turn = self._start(scope, message, session_id)
        events = [event async for event in self._metered(turn, charge_to)]
        if turn.fatal is not None:
            raise turn.fatal
        return turn.response(events)

    async def drain(self) -> list[BackgroundReport]:
        """Wait for all background work (consolidation, recall bookkeeping): for tests and
        shutdown. Returns the consolidation reports finished since the last drain."""
        reports = await self._background.drain()
        await self.memory.drain()
        return reports

    async def start(self) -> list[StageFailed]:
        """Open the MCP servers' sessions now rather than at the first turn; returns a
        ``StageFailed`` per server that could not be reached (a later turn tries again)."""
        return [failed for pool in self._mcp_pools for failed in await pool.open()]

    async def aclose(self) -> None:
        """Close the MCP servers' sessions (spawned servers exit). Background work is not
        waited for: :meth:`drain` first for that."""
        for pool in self._mcp_pools:
            await pool.aclose()

    async def __aenter__(self) -> Agent:
        for failed in await self.start():
            log.warning("%s: %s", failed.error_type, failed.message)
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    @property
    def mcp(self) -> McpTools | None:
        """The capability of ``config.mcp_servers`` (None without them): ``agent.mcp.status()``
        tells which servers are connected."""
        return next((cap for cap in self._capabilities if isinstance(cap, McpTools) and cap.name == "mcp"), None)

    async def warm(self) -> WarmUp:
        """Get ready for the first turn to cost what later ones do: :meth:`Memory.warm
        <hippograph.memory.Memory.warm>`, then the turn's own first statements: resuming a
        session (a read, in the warm-up scope and in the scope written last, then of the
        session written last, whose turns it reads back and forgets) and seeding the persona
        (a write into the warm-up scope, erased again at once: nothing is left).
        ``hippograph serve`` runs this before ``/readyz`` says ready.

        Raises:
            ConfigurationError: The embedder cannot load.
            HippographError: The database failed.
        """
        warmed = await self.memory.warm()
        recent = await self.memory.recent_scope()
        for scope in (WARM_SCOPE, *([Scope.parse(recent)] if recent is not None else [])):
            await self.sessions.open(scope, WARM_SESSION)  # a session nobody has: a read, no rows
            self.sessions.drop(scope, WARM_SESSION)
            await self.memory.count_events(scope, WARM_SESSION)  # what resuming one with turns reads too
        if recent is not None:  # a session with turns: its rows, as a restarted server has not read them yet
            newest = await self.memory.query_events(Scope.parse(recent), limit=1)
            if newest and newest[0].session_id is not None:
                await self.sessions.warm(Scope.parse(newest[0].scope_key), newest[0].session_id)
        if self.config.persona.enabled:
            await self._persona.seed(self.memory, WARM_SCOPE)
            await self.memory.forget(Scope(WARM_SCOPE.levels[:1]))
        return warmed

    @property
    def pending_background(self) -> int:
        """Consolidation tasks still running."""
        return self._background.pending

    def _metered(self, turn: TurnLog, charge_to: str | None) -> AsyncIterator[AgentEvent]:
        """The turn's events, its budget checked first and charged after, its model calls
        recorded under its session."""
        budget = self.budget
        account = None if budget is None else budget.account(charge_to) if charge_to else budget.for_scope(turn.scope)
        return metered(
            self._events(turn), account=account, records=self.call_records, scope_key=turn.scope.key,
            conversation=lambda: turn.session_id,
        )  # fmt: skip

    # -- the turn: the stages, in order ---------------------------------------------------
    def _start(self, scope: Scope, message: str, session_id: str | None) -> TurnLog:
        if not isinstance(scope, Scope):
            raise InvalidInputError("scope", "must be a Scope")
        if not isinstance(message, str) or not message.strip():
            raise InvalidInputError("message", "must be a non-empty string")
        if len(message) > MAX_MESSAGE_CHARS:
            raise InvalidInputError("message", f"longer than {MAX_MESSAGE_CHARS} characters")
        check_text(message, "message")
        if session_id is not None:
            check_id(session_id, "session_id")
        return TurnLog(scope, message, session_id, StageClock(self._hooks))

    async def _events(self, turn: TurnLog) -> AsyncIterator[AgentEvent]:
        """The turn's events, each noted in the turn's log and sent to the hooks; the turn is
        one span (``hippograph.agent.turn``), current only while the turn's own code runs."""
        attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": self.config.agent_name}
        current = tracer().start_span("hippograph.agent.turn", attributes={**attributes, SCOPE_KEY: turn.scope.key})
        try:
            async for event in in_span(current, self._turn(turn)):
                turn.observe(event)
                self._hooks.event(event)
                if isinstance(event, Usage):
                    self._hooks.usage(event.totals())
                yield event
        finally:
            turn.bookkeeping.release()  # the turn failed or was closed before its model answered
            current.set_attributes(_turn_attributes(turn))
            if turn.fatal is not None:
                current.set_status(Status(StatusCode.ERROR, type(turn.fatal).__name__))
            current.end()
            turn.clock.report()

    async def _turn(self, turn: TurnLog) -> AsyncIterator[AgentEvent]:
        """Session, then (under its lock) triage, prompt, model, check, extraction, record."""
        c, scope, message, clock = self.config, turn.scope, turn.message, turn.clock
        opened = Out[Session]()
        async for event in open_session(self.sessions, scope, turn.session_id, clock, opened):
            yield event
        session = opened.value
        turn.session_id = session.id
        async with held(session, clock):
            for error in session.take_errors():  # the previous turn's background failures
                yield error
            if self._mcp_pools:  # MCP sessions: opened by the first turn, reused after
                with clock.time(Stage.TOOLS):
                    unavailable = [failed for pool in self._mcp_pools for failed in await pool.open()]
                for failed in unavailable:
                    yield failed

            jit = c.prompt_mode == "jit" and c.hydrate.enabled
            triaged = Out[Triaged]()
            async for event in run_triage(
                message, scope, capabilities=self._capabilities, config=self._triage, classifier=self._classifier,
                jit=jit, report_routing=c.triage.tool_routing_mode is not TriageMode.OFF, clock=clock, out=triaged,
            ):  # fmt: skip
                yield event
            decision, tools = triaged.value.decision, triaged.value.tools

            prompt = Out[Prompt]()
            async for event in build_prompt(
                self.memory, scope, message, session, decision, config=c, jit=jit, persona=self._persona,
                summarizer=self._summarizer, sections=self._sections, clock=clock, out=prompt,
                bookkeeping=turn.bookkeeping,
            ):  # fmt: skip
                yield event

            caller = ModelCaller(self.model, c, prompt.value.system, decision.routing.tools, clock)
            stage = Stage.MODEL
            try:
                draft = Out[Draft]()
                async for event in run_model_loop(
                    caller, prompt.value.messages, hold=self._checker.mode in HOLDING_MODES, tools=tools, config=c,
                    hydrate_tool=HydrateTool(self.memory, c.hydrate, scope, session.id, decision.layers)
                    if c.prompt_mode == "jit"
                    else None,
                    memory_texts=prompt.value.memory_texts, clock=clock, out=draft,
                ):  # fmt: skip
                    yield event
                turn.bookkeeping.release()  # the recall's writes, now that the model has answered

                stage = Stage.FINISH
                checked = Out[Checked]()
                async for event in check_draft(
                    draft.value, checker=self._checker, caller=caller, max_ops=c.extraction.max_ops, clock=clock,
                    out=checked,
                ):  # fmt: skip
                    yield event
                turn.reply, turn.model_calls = checked.value.reply, caller.calls

                settled = settle_ops(
                    checked.value.extraction, enabled=c.extraction.enabled, refused=checked.value.refused
                )
                if settled.event is not None:
                    yield settled.event

                async for event in record_turn(
                    turn, session, reply=checked.value.reply, ops=settled.ops, actions=draft.value.actions, config=c,
                    memory=self.memory, consolidator=self.consolidator, background=self._background,
                    persona=self._persona,
                ):  # fmt: skip
                    yield event
            except Exception as exc:
                if isinstance(exc, StageError):
                    stage, exc = exc.stage, exc.error
                log.warning("%s failed: %s", stage, type(exc).__name__, exc_info=exc)
                turn.fatal, turn.model_calls = exc, caller.calls
                yield StageFailed.from_exception(stage, exc, recoverable=False)
                yield MessageEnd(message_id=turn.message_id, stop_reason="error")
                return
            yield checked.value.end

    def _background_done(self, record: TurnRecord, report: BackgroundReport) -> None:
        self._hooks.stage(Stage.CONSOLIDATE, report.ms)
        errors = list(report.errors) + [
            StageFailed(stage="scrub", error_type="InvalidOp", message=f"op {s.index}: {s.reason}")
            for s in report.skipped_ops
        ]
        for error in errors:
            record.session.report(error)
            self._hooks.event(error)


def _turn_attributes(turn: TurnLog) -> dict[str, AttributeValue]:
    """The turn span's outcome: the session, the model's calls and tokens, what failed."""
    return {
        "gen_ai.conversation.id": turn.session_id or "",
        "hippograph.agent.model_calls": turn.model_calls,
        **usage_attributes(turn.usage),
        "hippograph.agent.stage_failures": [e.stage for e in turn.errors],
    }


def _registered(tools: Sequence[AgentTool], capabilities: Sequence[ToolCapability]) -> tuple[ToolCapability, ...]:
    """``tools`` as the first capability, then ``capabilities``; names checked."""
    for c in capabilities:
        if not isinstance(c, ToolCapability):
            raise InvalidInputError("capabilities", f"{type(c).__name__} has no name and tools(scope)")
    registered: tuple[ToolCapability, ...] = (Tools(list(by_name(tools).values())), *capabilities)
    names = [c.name for c in registered]
    if len(set(names)) != len(names):
        raise InvalidInputError("capabilities", f"capability names must be unique: {names}")
    return registered
