"""Memory for any agent host: a capability bound to exactly one scope.

``memory.for_scope(scope, ...)`` returns a :class:`MemoryCapability` that recalls, records
and erases for that scope and no other: a host keeps one capability per scope (per user,
per conversation) instead of passing a scope on every call, so one capability can never
read or write a sibling's memories.

The three grants come together, because one without the others is a broken deployment:

- **read**: :meth:`MemoryCapability.recall` renders what the scope remembers about the
  turn's message as one text block within a UTF-8 byte budget (``budget``, and
  ``item_budget`` for each memory in it), the ``limit`` best memories first, the last
  ``recent_turns`` of the ``conversation`` verbatim, credentials scrubbed;
- **write**: :meth:`MemoryCapability.record` stores the exchange (an episodic event chained
  per session, the turn and the model's thinking in working memory), applies memory ops
  (given, and those an :class:`Extractor` finds in the exchange after the model's final
  round), links the event to the facts it produced, stores what the agent did (its tool
  calls, an ``action`` event that consolidation learns skills from), and keeps the
  consolidation cadence: a quick nap it makes due runs in the background, so its latency
  never lands on the host's turn (:meth:`MemoryCapability.wait_idle` awaits the naps in
  flight and returns their failures);
- **flush**: ``record`` is write-through — when it returns, everything it wrote is
  committed and recallable by the next turn's ``recall`` (:meth:`MemoryCapability.flush`
  waits for the naps and for recall's own background bookkeeping, for tests and shutdown).

The scope may be given in any of its forms (a :class:`Scope`, its key, its path, or a host's
own scope type that converts to one: :func:`~hippograph.memory.scopes.as_scope`).

:meth:`MemoryCapability.forget` erases the scope and everything below it.

The capability knows nothing of agents, models or consolidation internals: the extractor
and the consolidator are ports (:class:`Extractor`, :class:`Consolidation`), and so is the
memory it serves (:class:`MemoryPort`): this module imports only the layers, the commit report
and what is below them. ``hippograph.agent.extractors`` has a
Claude extractor and an offline one; ``SleepConsolidator`` is a :class:`Consolidation`.

Example (a plain loop; ``my_model`` is any chat function)::

    memory = await hippograph.open_memory(...)
    alice = memory.for_scope(Scope.root("user", "alice"), budget=4_000)
    for message in messages:
        recalled = await alice.recall(message)
        reply = await my_model(system=f"What you remember:\\n{recalled.text}", user=message)
        await alice.record(message, reply)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippograph.errors import AlreadyRunningError, ConfigurationError, InvalidInputError
from hippograph.layers.episodic import ActionCall, turn_text
from hippograph.layers.metacognition import GateMode
from hippograph.memory.op_scrub import scrub_op
from hippograph.memory.ports import Consolidation, Exchange, Extractor, MemoryPort
from hippograph.memory.reports import Recollection, RecordFailure, RecordReport, SkippedOp
from hippograph.memory.scopes import as_scope
from hippograph.memory.utf8_budget import fit_utf8
from hippograph.models import ID_PATTERN, MAX_TEXT, Layer, MemoryEdge, Relationship
from hippograph.ops import MemoryOp
from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.derived import MAX_DRAWN_FROM, drawn_on
from hippograph.retrieval.types import Channel
from hippograph.scope import Scope
from hippograph.scrub import Scrubber

if TYPE_CHECKING:
    from hippograph.layers.turn_reads import TurnReads

__all__ = ["MAX_AGENT_CHARS", "MAX_USER_CHARS", "MemoryCapability", "RecordPolicy"]

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 5
MAX_LIMIT = 100
MAX_USER_CHARS = 6_000
MAX_AGENT_CHARS = MAX_TEXT - MAX_USER_CHARS - 100
DAY = 86_400.0
T = TypeVar("T")


class RecordPolicy(BaseModel):
    """What :meth:`MemoryCapability.record` stores (the defaults store everything)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store_turn_episodic: bool = True
    """The exchange as an episodic event ``User: … | Agent: …``, chained per session."""
    apply_ops: bool = True
    """Apply the given and the extracted memory ops."""
    auto_approve_skills: bool = False
    """Skills become active at once (otherwise drafts for review)."""
    skill_gate: GateMode = GateMode.OFF
    """The metacognitive gate on registered skills: ``flag`` or ``refuse`` one that
    contradicts the scope's core preferences (see :mod:`hippograph.layers.metacognition`)."""
    store_thinking: bool = True
    """The model's thinking into working memory (≤ 500 characters)."""
    thinking_ttl: float = Field(default=DAY, gt=0)
    store_turn_working: bool = True
    """The exchange into working memory (the next turn's recent context)."""
    store_actions: bool = True
    """What the agent did (its tool calls) as an episodic ``action`` event ``PART_OF`` the
    turn's event: the input of procedural promotion (consolidation phase 12)."""


class MemoryCapability:
    """Recall, record and erase for exactly one scope. Build it with
    :meth:`~hippograph.memory.Memory.for_scope`.

    Args:
        memory: The memory to use (shared by every scope's capability).
        scope: The one scope this capability serves, in any form :func:`as_scope` reads.
        limit: Memories recalled per turn (1–100).
        budget: Most UTF-8 bytes of a recalled block; None: only the token budget.
        item_budget: Most UTF-8 bytes of one memory in the block (a longer one is cut, with
            ``…``); None: no ceiling per memory.
        token_budget: The context's token budget (chars/4); None: the recall config's.
        extractor: Run by :meth:`record` on each exchange; None: no extraction.
        consolidation: Keeps the nap cadence for :meth:`record`; None: no naps.
        policy: What :meth:`record` stores.
        activation: Spreading activation for this capability's recalls; None: the memory's
            recall configuration.
        recent_turns: Working-memory entries shown verbatim at the top of a recalled block
            (0: none); None: the working layer's default (2).
        conversation: The session this capability serves by default: recall shows its
            recent turns and record chains its exchanges (a call's ``session_id`` wins).

    Raises:
        InvalidInputError: A bad scope, limit, budget or recent_turns.
        ConfigurationError: ``extractor`` or ``consolidation`` cannot serve its port.
    """

    def __init__(
        self,
        memory: MemoryPort,
        scope: Scope | Any,
        *,
        limit: int = DEFAULT_LIMIT,
        budget: int | None = None,
        item_budget: int | None = None,
        token_budget: int | None = None,
        extractor: Extractor | None = None,
        consolidation: Consolidation | None = None,
        policy: RecordPolicy | None = None,
        activation: ActivationConfig | None = None,
        recent_turns: int | None = None,
        conversation: str | None = None,
    ) -> None:
        scope = as_scope(scope)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError("limit", f"must be an integer from 1 to {MAX_LIMIT}")
        for name, value in (("budget", budget), ("item_budget", item_budget), ("token_budget", token_budget)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidInputError(name, "must be a positive integer or None")
        if recent_turns is not None and (
            isinstance(recent_turns, bool) or not isinstance(recent_turns, int) or not 0 <= recent_turns <= MAX_LIMIT
        ):
            raise InvalidInputError("recent_turns", f"must be an integer from 0 to {MAX_LIMIT} or None")
        if activation is not None and not isinstance(activation, ActivationConfig):
            raise InvalidInputError("activation", "must be an ActivationConfig or None")
        if conversation is not None and (not isinstance(conversation, str) or not conversation.strip()):
            raise InvalidInputError("conversation", "must be a non-empty session id or None")
        if extractor is not None and not isinstance(extractor, Extractor):
            raise ConfigurationError(f"extractor: {type(extractor).__name__} has no async extract(exchange)")
        if consolidation is not None and not isinstance(consolidation, Consolidation):
            raise ConfigurationError(
                f"consolidation: {type(consolidation).__name__} needs note_turn(scope) and quick_nap(scope)"
            )
        self._memory = memory
        self._scope = scope
        self._limit = limit
        self._budget = budget
        self._item_budget = item_budget
        self._token_budget = token_budget
        self._extractor = extractor
        self._consolidation = consolidation
        self._policy = policy or RecordPolicy()
        self._recent_turns = recent_turns
        self._conversation = conversation
        self._config = (
            memory.recall_config.model_copy(update={"activation": activation}) if activation is not None else None
        )
        self._naps: set[asyncio.Task[object | None]] = set()
        self._nap_failures: list[RecordFailure] = []

    @property
    def scope(self) -> Scope:
        """The scope this capability serves."""
        return self._scope

    @property
    def conversation(self) -> str | None:
        """The session this capability serves by default (None: the whole scope)."""
        return self._conversation

    @property
    def naps_in_flight(self) -> int:
        """Quick naps scheduled by :meth:`record` that have not finished."""
        return len(self._naps)

    def __repr__(self) -> str:
        return f"MemoryCapability(scope={self._scope.key!r}, limit={self._limit}, budget={self._budget})"

    # -- read ------------------------------------------------------------------------------
    async def recall(
        self,
        query: str,
        *,
        layers: Sequence[Layer] | None = None,
        limit: int | None = None,
        include_working: bool = True,
        session_id: str | None = None,
        turn_reads: TurnReads | None = None,
    ) -> Recollection:
        """The memory block for a turn whose message is ``query``.

        The scope's own and its ancestors' memories only (never a sibling's); the recent
        turns of working memory first, then the best ``limit`` memories, then associated
        ones; cut to the token budget and then to the byte budget.

        Raises:
            InvalidQueryError: A bad query, layer or limit.
            StoreError: The database failed.
        """
        budget_tokens = self._token_budget
        if budget_tokens is None and self._budget is not None:
            # a line of b bytes costs at most b/4 + 1 tokens: the byte budget binds first
            budget_tokens = max(self._budget, self._memory.recall_config.token_budget)
        result, context = await self._memory.context(
            self._scope, query, budget=budget_tokens, layers=layers, top_k=limit or self._limit,
            include_working=include_working and self._recent_turns != 0,
            session_id=session_id or self._conversation, turn_reads=turn_reads,
            recent_turns=self._recent_turns, config=self._config,
        )  # fmt: skip
        if self._budget is None and self._item_budget is None:
            text, ids, dropped = context.text, [e.id for e in context.entries], list(context.dropped)
        else:
            associated = {i.node.id for i in result.items if Channel.ACTIVATION in i.channels}
            text, ids, cut = fit_utf8(context, associated, self._budget, item_budget=self._item_budget)
            dropped = [*context.dropped, *cut]
        return Recollection(text, len(text.encode("utf-8")), ids, dropped, result, context)

    # -- write -----------------------------------------------------------------------------
    def note_turn(self) -> bool:
        """Count one turn towards the scope's nap cadence; True when a quick nap is due.
        :meth:`record` does this itself unless told whether to nap."""
        return self._consolidation.note_turn(self._scope) if self._consolidation is not None else False

    async def record(
        self,
        user: str,
        reply: str,
        *,
        thinking: str = "",
        session_id: str | None = None,
        ops: Sequence[MemoryOp] = (),
        actions: Sequence[ActionCall] = (),
        nap: bool | None = None,
        drawn_from: Sequence[str] = (),
    ) -> RecordReport:
        """Record a finished exchange; when it returns, what it wrote is recallable.

        Steps, each on its own (one failing is reported in ``failures`` and the next still
        runs): the exchange as an episodic event; the extractor's ops (after the model's
        final round, which is now) with ``ops``, credentials scrubbed, applied by layer with
        the event as their source; the event ``MENTIONS`` the facts written; thinking and
        the exchange into working memory. Last, the quick nap when one is due, scheduled in
        the background (``nap_task`` of the report; :meth:`wait_idle` awaits it).

        Args:
            user: What the user said.
            reply: What the agent answered (the visible reply).
            thinking: The model's thinking, if kept.
            session_id: The conversation (chains its episodic events); None: the
                capability's ``conversation``.
            ops: Memory ops to apply besides the extractor's (e.g. the reply's own block).
            actions: What the agent did in the turn (its tool calls, in order).
            nap: Run the quick nap (True/False) — for a host that counted the turn itself
                with :meth:`note_turn`; None counts the turn here.
            drawn_from: The memories the model was shown (e.g. the ids of the
                :class:`Recollection`); the event records those the reply draws on (content
                words of the reply that ``user`` lacks are in them) as ``DERIVED_FROM``, and
                recall ranks it below them. Ids this scope cannot see are left out.

        Raises:
            InvalidInputError: ``user`` and ``reply`` are both empty.
        """
        if not (isinstance(user, str) and isinstance(reply, str)) or not (user.strip() or reply.strip()):
            raise InvalidInputError("exchange", "user and reply must be strings, not both empty")
        p, memory, scope = self._policy, self._memory, self._scope
        scrub = memory.scrubber
        session_id = session_id or self._conversation
        report = RecordReport(nap_due=self.note_turn() if nap is None else nap)
        user_text = _cut(scrub.text(user), MAX_USER_CHARS)
        agent_text = _cut(scrub.text(reply), MAX_AGENT_CHARS)

        async def guard(step: str, work: Callable[[], Awaitable[T]]) -> T | None:
            try:
                return await work()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("recording step %s failed: %s", step, type(exc).__name__, exc_info=True)
                report.failures.append(RecordFailure.of(step, exc))
                return None

        sources: list[str] | None = None
        if drawn_from and (p.store_turn_episodic or p.store_turn_working):
            sources = await guard("drawn_from", lambda: self._drawn_on(user_text, agent_text, drawn_from))
        if p.store_turn_episodic:
            event = await guard(
                "store_turn",
                lambda: memory.store_turn(
                    scope, user_text, agent_text, session_id=session_id, drawn_from=sources or ()
                ),
            )
            report.turn_event_id = event.id if event is not None else None
        if p.store_actions and actions:
            done = await guard(
                "store_actions",
                lambda: memory.store_actions(scope, user_text, actions, turn_event_id=report.turn_event_id),
            )
            report.action_event_id = done.id if done is not None else None
        if p.apply_ops:
            await self._apply_ops(Exchange(user, reply, thinking, session_id), ops, report, guard)
        if report.turn_event_id and report.mentions:
            edges = [
                MemoryEdge(source=report.turn_event_id, target=fact, relationship=Relationship.MENTIONS)
                for fact in report.mentions
            ]
            await guard("mentions", lambda: memory.link(scope, edges))
        kept_thinking = scrub.text(thinking.strip())
        if p.store_thinking and kept_thinking:
            node = await guard(
                "store_thinking",
                lambda: memory.push_working(
                    scope, kept_thinking, kind="thinking", session_id=session_id, ttl=p.thinking_ttl
                ),
            )
            if node is not None:
                report.working_ids.append(node.id)
        if p.store_turn_working:
            turn = turn_text(user_text, agent_text)
            node = await guard(
                "store_working",
                lambda: memory.push_working(scope, turn, kind="turn", session_id=session_id, drawn_from=sources or ()),
            )
            if node is not None:
                report.working_ids.append(node.id)
        if report.nap_due and self._consolidation is not None:
            report.nap_task = self._schedule_nap(report)
        return report

    async def _drawn_on(self, user: str, reply: str, ids: Sequence[str]) -> list[str]:
        """Of ``ids``, the memories this scope sees that the reply draws on (:func:`drawn_on`), in order."""
        wanted = [i for i in dict.fromkeys(ids) if isinstance(i, str) and ID_PATTERN.match(i)]
        if not wanted:
            return []
        nodes = {n.id: n for n in await self._memory.get_nodes(self._scope, wanted)}
        return drawn_on(user, reply, [nodes[i] for i in wanted if i in nodes])[:MAX_DRAWN_FROM]

    async def _apply_ops(
        self, exchange: Exchange, given: Sequence[MemoryOp], report: RecordReport, guard: _Guard
    ) -> None:
        if self._extractor is not None:
            extractor = self._extractor
            found = await guard("extract", lambda: extractor.extract(exchange))
            report.extracted = list(found or [])
        ops = _scrubbed([*given, *report.extracted], report, self._memory.scrubber)
        if not ops:
            return
        memory, scope = self._memory, self._scope
        commit = await guard(
            "commit",
            lambda: memory.commit(
                scope, ops, auto_approve_skills=self._policy.auto_approve_skills,
                source_event_id=report.turn_event_id, skill_gate=self._policy.skill_gate,
            ),
        )  # fmt: skip
        report.commit = commit
        if commit is None:
            return
        for failure in commit.failed:
            message = f"op {failure.get('index')} ({failure.get('op')}): {failure.get('error')}"
            report.failures.append(RecordFailure("commit", "OpFailed", message[:500]))
        facts = [a["id"] for a in commit.applied if a.get("op") == "upsert_node" and a.get("id")]
        report.mentions = list(dict.fromkeys(facts))

    def _schedule_nap(self, report: RecordReport) -> asyncio.Task[object | None]:
        task = asyncio.create_task(self._nap(report), name=f"hippograph-quick-nap:{self._scope.key}")
        self._naps.add(task)
        task.add_done_callback(self._naps.discard)
        self._memory.track(self._scope, task)  # an erase of the scope waits for it
        return task

    async def _nap(self, report: RecordReport) -> object | None:
        consolidation = self._consolidation
        if consolidation is None:
            return None
        try:
            report.nap = await consolidation.quick_nap(self._scope)
            return report.nap
        except AlreadyRunningError:
            log.info("quick nap of %s skipped: another consolidation holds the scope", self._scope.key)
            return None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("quick nap of %s failed: %s", self._scope.key, type(exc).__name__, exc_info=True)
            failure = RecordFailure.of("quick_nap", exc)
            report.failures.append(failure)
            self._nap_failures.append(failure)
            return None

    async def wait_idle(self) -> list[RecordFailure]:
        """Wait for every quick nap :meth:`record` scheduled (also those scheduled meanwhile).

        Returns:
            The failures of the naps that finished since the last call (each is also in its
            record's report and logged); empty when all went well.
        """
        while self._naps:
            await asyncio.gather(*self._naps, return_exceptions=True)
        failures, self._nap_failures = self._nap_failures, []
        return failures

    async def flush(self) -> list[RecordFailure]:
        """Wait for the naps in flight (:meth:`wait_idle`, whose failures it returns) and for
        recall's background bookkeeping (access counts): for tests and shutdown. Recorded
        memories do not wait for this; they are recallable when ``record`` returns."""
        failures = await self.wait_idle()
        await self._memory.drain()
        return failures

    # -- erase -----------------------------------------------------------------------------
    async def forget(self) -> int:
        """Erase the scope and everything below it (after the naps in flight); the number of
        memories deleted."""
        await self.wait_idle()
        return await self._memory.forget(self._scope)


class _Guard(Protocol):
    async def __call__(self, step: str, work: Callable[[], Awaitable[T]]) -> T | None: ...


def _scrubbed(ops: Sequence[MemoryOp], report: RecordReport, scrubber: Scrubber) -> list[MemoryOp]:
    out: list[MemoryOp] = []
    for index, op in enumerate(ops):
        try:
            out.append(scrub_op(op, scrubber))
        except (ValidationError, ValueError) as exc:
            reason = f"invalid after scrubbing credentials: {type(exc).__name__}"
            report.skipped_ops.append(SkippedOp(index=index, reason=reason))
    return out


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
