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

from hippograph.agent.events import AgentEvent, StageFailed
from hippograph.agent.stages import Out, Stage
from hippograph.llm.types import ChatMessage
from hippograph.models import check_id

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


@dataclass(frozen=True, slots=True)
class Turn:
    """One exchange of a session as remembered (credentials already scrubbed)."""

    user: str
    agent: str


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

    def messages(self) -> list[ChatMessage]:
        """The history as alternating user / assistant messages."""
        out: list[ChatMessage] = []
        for turn in self.history:
            if turn.user.strip() and turn.agent.strip():
                out.append(ChatMessage(role="user", content=turn.user))
                out.append(ChatMessage(role="assistant", content=turn.agent))
        return out

    def record(self, turn: Turn) -> None:
        """Remember a finished turn; the oldest one it pushes out waits in ``overflow`` for
        the compaction (the newest ``MAX_OVERFLOW`` of them)."""
        if self.history.maxlen is not None and len(self.history) == self.history.maxlen:
            self.overflow = [*self.overflow, self.history[0]][-MAX_OVERFLOW:]
        self.history.append(turn)
        self.turns += 1
        self.last_used_at = time.time()

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
        return Session(session_id, scope, deque(maxlen=max(self._settings.history_turns, 1)))

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
        events = await self._memory.episodic.query_events(session.scope, session_id=session.id, limit=max(limit, 1) * 2)
        own = [e for e in events if e.scope_key == session.scope.key and e.properties.get("kind") == "turn"]
        if not own:
            return
        session.resumed = True
        session.turns = await self._memory.episodic.count_events(session.scope, session.id)
        for event in reversed(own[:limit]):
            turn = parse_turn(event.content)
            if turn is not None:
                session.history.append(turn)


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
