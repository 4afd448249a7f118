"""Chat sessions: many per scope, an LRU capped per tenant, resumable from the graph.

A session keeps the last turns of one chat (scrubbed, as stored) to send to the model as
messages, a lock that runs its turns one at a time, and the chain of its background work
(each turn's consolidation starts after the previous one's, so the episodic ``NEXT`` chain
stays in order). Sessions are counted per tenant (the root scope); past the tenant's cap its
own least recently used 10 % are dropped from memory, and past the cap over all tenants the
tenant holding the most gives up its oldest 10 %, so one tenant never evicts a smaller one's
sessions and the table stays bounded however many tenants come (a session whose turn is
running is never dropped: beyond the caps by at most the turns in flight). A dropped or
unknown session is rebuilt from its episodic chain in the graph, so a chat survives both
eviction and a restart.

The turns sent verbatim are bounded by tokens (``history_tokens``, the chars/4 estimate the
context budget uses) and by count (``history_turns``); the oldest beyond either wait in
``overflow`` until the next turn's hydration folds them into the running ``summary`` (with
compaction on). The session's state rides on its newest turn event in the graph
(:func:`state_properties`: the summary, how many turns the prompt then kept verbatim, the
due triggers shown), so a session resumed in another process gets its summary back, with the
turns between the summary and the kept ones waiting to be folded.

The session stage of a turn (:func:`open_session`) opens (or resumes) the chat; a graph that
cannot be read does not stop the chat: the session opens without its history and the failure
is a ``StageFailed`` event. The turn then runs under :func:`held` (the session's lock).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import JsonValue

from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.stages import Out, Stage
from hippograph.llm.types import ChatMessage
from hippograph.models import check_id
from hippograph.retrieval.context import approx_tokens

if TYPE_CHECKING:
    from hippograph.agent.config import SessionSettings
    from hippograph.agent.observability import StageClock
    from hippograph.memory import Memory
    from hippograph.scope import Scope

log = logging.getLogger(__name__)

TURN_USER_PREFIX = "User: "
TURN_SEPARATOR = " | Agent: "
MAX_PENDING_ERRORS = 20
MAX_OVERFLOW = 50
MAX_REMINDED = 100
"""Due triggers a session remembers as shown (the oldest go first)."""
SUMMARY_KEY = "session_summary"
KEPT_KEY = "session_kept_turns"
REMINDED_KEY = "session_reminded"


@dataclass(frozen=True, slots=True)
class Turn:
    """One exchange of a session as remembered (credentials already scrubbed)."""

    user: str
    agent: str

    @property
    def tokens(self) -> int:
        """Its cost as messages, by the chars/4 estimate."""
        return approx_tokens(self.user) + approx_tokens(self.agent)


@dataclass(eq=False)
class Session:
    """One chat in one scope.

    Attributes:
        id: The session id (a memory's ``session_id``).
        history: The last turns, oldest first.
        turns: Turns run or resumed in this session.
        resumed: True when the history was rebuilt from the graph.
    """

    id: str
    scope: Scope
    history: deque[Turn]
    created_at: float = field(default_factory=time.time)
    last_used_at: float = field(default_factory=time.time)
    turns: int = 0
    resumed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    tail: asyncio.Task[None] | None = field(default=None, repr=False)
    pending_errors: list[StageFailed] = field(default_factory=list, repr=False)
    overflow: list[Turn] = field(default_factory=list, repr=False)
    """Turns pushed out of ``history`` and not yet folded into ``summary`` (compaction)."""
    summary: str = ""
    """The compacted summary of the turns before ``history`` (empty without compaction)."""
    history_tokens: int | None = None
    """Most tokens of ``history`` (None: no token bound, only ``history``'s length)."""
    reminded: dict[str, str] = field(default_factory=dict, repr=False)
    """Due triggers shown as fired in this session: id → firing key (oldest first)."""

    def messages(self) -> list[ChatMessage]:
        """The history as alternating user / assistant messages."""
        out: list[ChatMessage] = []
        for turn in self.history:
            if turn.user.strip() and turn.agent.strip():
                out.append(ChatMessage(role="user", content=turn.user))
                out.append(ChatMessage(role="assistant", content=turn.agent))
        return out

    def record(self, turn: Turn) -> None:
        """Remember a finished turn; the oldest ones it pushes out of the history's count or
        token bound wait in ``overflow`` for the compaction (the newest ``MAX_OVERFLOW``)."""
        if self.history.maxlen is not None and len(self.history) == self.history.maxlen:
            self._push_out()
        self.history.append(turn)
        if self.history_tokens is not None:
            used = sum(t.tokens for t in self.history)
            while self.history and used > self.history_tokens:
                used -= self.history[0].tokens
                self._push_out()
        self.turns += 1
        self.last_used_at = time.time()

    def _push_out(self) -> None:
        self.overflow = [*self.overflow, self.history.popleft()][-MAX_OVERFLOW:]

    def remind(self, trigger_id: str, key: str) -> None:
        """Remember that a due trigger was shown as fired (at its ``key``)."""
        self.reminded.pop(trigger_id, None)
        self.reminded[trigger_id] = key
        while len(self.reminded) > MAX_REMINDED:
            self.reminded.pop(next(iter(self.reminded)))

    def state(self) -> dict[str, JsonValue]:
        """What the graph keeps of the session on its newest turn event (see
        :func:`state_properties`); taken when the turn is recorded."""
        return state_properties(self.summary, len(self.history), self.reminded)

    def report(self, error: StageFailed) -> None:
        """Keep a background failure to report at the start of the next turn."""
        if len(self.pending_errors) < MAX_PENDING_ERRORS:
            self.pending_errors.append(error)

    def take_errors(self) -> list[StageFailed]:
        """The background failures not yet reported (then forgotten)."""
        errors, self.pending_errors = self.pending_errors, []
        return errors


class SessionManager:
    """The sessions of one agent, an LRU per tenant.

    Args:
        memory: Where sessions are resumed from (None: never resumed).
        settings: Cap, eviction fraction, history length, resume switch.
    """

    def __init__(self, memory: Memory | None, settings: SessionSettings) -> None:
        self._memory = memory
        self._settings = settings
        self._tenants: OrderedDict[str, OrderedDict[tuple[str, str], Session]] = OrderedDict()
        """Tenant → its sessions; both least recently used first."""
        self._held = 0
        self.evicted = 0

    def __len__(self) -> int:
        return self._held

    def tenants(self) -> int:
        """Tenants with a session held in memory."""
        return len(self._tenants)

    def count(self, scope: Scope) -> int:
        """Sessions held in memory for the tenant of ``scope``."""
        return len(self._tenants.get(_tenant(scope), ()))

    def get(self, scope: Scope, session_id: str) -> Session | None:
        """The session if it is held in memory (no resume, no LRU bump)."""
        tenant = self._tenants.get(_tenant(scope))
        return tenant.get((scope.key, session_id)) if tenant is not None else None

    def list(self, scope: Scope) -> list[Session]:
        """Sessions of exactly this scope held in memory, most recently used last."""
        tenant = self._tenants.get(_tenant(scope))
        return [s for s in tenant.values() if s.scope == scope] if tenant is not None else []

    async def open(self, scope: Scope, session_id: str | None, *, resume: bool = True) -> Session:
        """The session to run a turn in: held, resumed from the graph, or new.

        Args:
            scope: The scope of the chat.
            session_id: The chat's id; None starts a new one with a fresh id.
            resume: Rebuild an unknown session from the graph (when the settings allow).

        Raises:
            InvalidInputError: ``session_id`` is not a valid id.
            HippographError: The graph could not be read while resuming.
        """
        if session_id is None:
            return self._add(self._new(scope, uuid.uuid4().hex))
        check_id(session_id, "session_id")
        tenant = self._tenants.get(_tenant(scope))
        key = (scope.key, session_id)
        if tenant is not None and key in tenant:
            tenant.move_to_end(key)
            self._tenants.move_to_end(_tenant(scope))
            return tenant[key]
        session = self._new(scope, session_id)
        if resume and self._settings.resume_from_graph and self._memory is not None:
            await self._resume(session)
        existing = self.get(scope, session_id)  # resumed concurrently by another turn
        return existing if existing is not None else self._add(session)

    async def warm(self, scope: Scope, session_id: str) -> int:
        """Read ``session_id`` of ``scope`` back from the graph as resuming it does, into a
        session that is not kept (the sessions held stay as they are): the first resume
        after a server start reads rows it has not read yet. Returns the session's turns in
        the graph.

        Raises:
            HippographError: The graph could not be read.
        """
        if self._memory is None or not self._settings.resume_from_graph:
            return 0
        session = self._new(scope, session_id)
        await self._resume(session)
        return session.turns

    def drop(self, scope: Scope, session_id: str) -> bool:
        """Forget a session held in memory (the graph keeps its turns)."""
        name = _tenant(scope)
        tenant = self._tenants.get(name)
        if tenant is None or tenant.pop((scope.key, session_id), None) is None:
            return False
        self._held -= 1
        if not tenant:
            del self._tenants[name]
        return True

    def _new(self, scope: Scope, session_id: str) -> Session:
        history: deque[Turn] = deque(maxlen=max(self._settings.history_turns, 1))
        return Session(session_id, scope, history, history_tokens=self._settings.history_tokens)

    def _add(self, session: Session) -> Session:
        name = _tenant(session.scope)
        own = self._tenants.get(name)
        if own is not None and len(own) >= self._settings.max_per_tenant:
            self._evict(name, self._batch(self._settings.max_per_tenant))
        if self._held >= self._settings.max_total:
            wanted = self._batch(self._settings.max_total)
            # the largest tenants give way; among equals the least recently used (a stable sort)
            for largest in sorted(self._tenants, key=lambda t: len(self._tenants[t]), reverse=True):
                wanted -= self._evict(largest, wanted)
                if wanted <= 0:
                    break
        tenant = self._tenants.setdefault(name, OrderedDict())
        self._tenants.move_to_end(name)
        tenant[(session.scope.key, session.id)] = session
        self._held += 1
        return session

    def _batch(self, cap: int) -> int:
        return max(1, math.ceil(cap * self._settings.evict_fraction))

    def _evict(self, name: str, count: int) -> int:
        """Drop up to ``count`` of one tenant's oldest sessions (not those running a turn)."""
        tenant = self._tenants[name]
        dropped = 0
        for key in [key for key, session in tenant.items() if not session.lock.locked()][:count]:
            del tenant[key]
            dropped += 1
        self._held -= dropped
        self.evicted += dropped
        if not tenant:
            del self._tenants[name]
        return dropped

    async def _resume(self, session: Session) -> None:
        if self._memory is None:
            return
        limit = self._settings.history_turns
        events = await self._memory.query_events(session.scope, session_id=session.id, limit=max(limit, 1) * 2)
        own = [e for e in events if e.scope_key == session.scope.key and e.properties.get("kind") == "turn"]
        if not own:
            return
        session.resumed = True
        session.turns = await self._memory.count_events(session.scope, session.id)
        uncovered = len(own)
        for index, event in enumerate(own):  # newest first: the newest state wins
            props = event.properties
            if SUMMARY_KEY in props or REMINDED_KEY in props:
                summary, kept = props.get(SUMMARY_KEY), props.get(KEPT_KEY)
                session.summary = summary if isinstance(summary, str) else ""
                if session.summary and isinstance(kept, int) and not isinstance(kept, bool):
                    uncovered = min(uncovered, index + kept + 1)  # older turns are in the summary
                shown = props.get(REMINDED_KEY)
                if isinstance(shown, list):
                    for item in shown:
                        if isinstance(item, str) and "=" in item:
                            trigger_id, key = item.split("=", 1)
                            session.remind(trigger_id, key)
                break
        if not self._settings.history_turns:
            return
        turns = [turn for event in reversed(own[:uncovered]) if (turn := parse_turn(event.content)) is not None]
        for turn in turns:  # as they were recorded: the bounds push the oldest out
            session.record(turn)
        session.turns -= len(turns)


def state_properties(summary: str, kept: int, reminded: dict[str, str]) -> dict[str, JsonValue]:
    """A session's state as properties of its newest turn event: the running summary, how
    many turns the prompt kept verbatim after it (the turns between are not in the summary
    yet), and the due triggers shown (``id=firing key``). Empty when there is nothing."""
    props: dict[str, JsonValue] = {}
    if summary:
        props[SUMMARY_KEY] = summary
        props[KEPT_KEY] = kept
    if reminded:
        props[REMINDED_KEY] = [f"{trigger_id}={key}" for trigger_id, key in reminded.items()]
    return props


def turn_text(turn: Turn) -> str:
    """A turn as stored in the graph, ``User: … | Agent: …``."""
    return f"{TURN_USER_PREFIX}{turn.user}{TURN_SEPARATOR}{turn.agent}"


def parse_turn(text: str) -> Turn | None:
    """``User: … | Agent: …`` back into its two sides (None for another shape)."""
    if not text.startswith(TURN_USER_PREFIX) or TURN_SEPARATOR not in text:
        return None
    user, agent = text[len(TURN_USER_PREFIX) :].split(TURN_SEPARATOR, 1)
    return Turn(user, agent)


def _tenant(scope: Scope) -> str:
    return scope.ancestor_keys()[0]


async def open_session(
    sessions: SessionManager, scope: Scope, session_id: str | None, clock: StageClock, out: Out[Session]
) -> AsyncIterator[AgentEvent]:
    """The session stage: open (or resume) the chat into ``out``; a failed resume is an event."""
    with clock.time(Stage.SESSION):
        try:
            out.value = await sessions.open(scope, session_id)
            failed: StageFailed | None = None
        except Exception as exc:  # the graph is down: chat on without the history
            log.warning("session resume failed: %s", type(exc).__name__, exc_info=True)
            out.value = await sessions.open(scope, session_id, resume=False)
            failed = StageFailed.from_exception(Stage.SESSION, exc)
    if failed is not None:
        yield failed


@asynccontextmanager
async def held(session: Session, clock: StageClock) -> AsyncIterator[None]:
    """The session's lock, for the rest of the turn; the wait for it counts towards the
    session stage."""
    started = time.perf_counter()
    async with session.lock:
        clock.add(Stage.SESSION, (time.perf_counter() - started) * 1000.0)
        yield
