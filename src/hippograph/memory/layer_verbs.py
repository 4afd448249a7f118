"""Each layer's own verbs on the memory's front: facts and their history, skills and their
review, prospective triggers, conversation events, the working buffer and the agent's persona.
:class:`~hippograph.memory.Memory` has them; the layers themselves stay private to it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import JsonValue

from hippograph.layers.episodic import ActionCall, EpisodicMemory
from hippograph.layers.procedural import ProceduralMemory
from hippograph.layers.prospective import ProspectiveMemory
from hippograph.layers.semantic import Persona, SemanticMemory
from hippograph.layers.triggers import RankedTrigger
from hippograph.layers.working import DAY, WorkingMemory
from hippograph.models import MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope

__all__ = ["LayerVerbs"]


class LayerVerbs:
    """The layers' verbs of :class:`~hippograph.memory.Memory` (its base class)."""

    _working: WorkingMemory
    _episodic: EpisodicMemory
    _semantic: SemanticMemory
    _procedural: ProceduralMemory
    _prospective: ProspectiveMemory

    # -- semantic --------------------------------------------------------------------------
    async def query_facts(
        self,
        scope: Scope,
        *,
        label: str | None = None,
        label_prefix: str | None = None,
        include_superseded: bool = True,
        limit: int | None = 50,
    ) -> list[MemoryNode]:
        """The facts ``scope`` sees, with this ``label`` or starting with ``label_prefix``."""
        return await self._semantic.query_facts(
            scope, label=label, label_prefix=label_prefix, include_superseded=include_superseded, limit=limit
        )

    async def current_fact(self, scope: Scope, key: str) -> MemoryNode | None:
        """The current (not superseded, not retracted) fact of exactly ``scope`` with ``key``."""
        return await self._semantic.repo.current_fact(scope, key)

    async def fact_history(self, scope: Scope, key: str) -> list[MemoryNode]:
        """Every version of the fact with ``key`` that ``scope`` sees, oldest first."""
        return await self._semantic.history(scope, key)

    async def persona(self, scope: Scope, *, nodes: list[MemoryNode] | None = None) -> Persona:
        """The agent's identity and profiles as ``scope`` sees them (``nodes``: already read)."""
        return await self._semantic.persona(scope, nodes=nodes)

    async def ensure_identity(self, scope: Scope, description: str) -> MemoryNode:
        """The agent's identity fact at ``scope``, stored once with ``description``."""
        return await self._semantic.ensure_identity(scope, description)

    # -- procedural ------------------------------------------------------------------------
    async def query_skills(self, scope: Scope, *, include_inactive: bool = False) -> list[MemoryNode]:
        """The skills ``scope`` sees (the newest version of each); drafts and rejected ones too
        with ``include_inactive``."""
        return await self._procedural.query_skills(scope, include_inactive=include_inactive)

    async def approve_skill(self, scope: Scope, skill_id: str, *, actor: str) -> MemoryNode:
        """Approve a draft skill of ``scope``: it becomes active (audited as ``actor``'s)."""
        return await self._procedural.approve_skill(scope, skill_id, actor=actor)

    async def reject_skill(self, scope: Scope, skill_id: str, *, actor: str, reason: str = "") -> MemoryNode:
        """Reject a skill of ``scope``: it becomes inactive, with ``reason``."""
        return await self._procedural.reject_skill(scope, skill_id, actor=actor, reason=reason)

    async def toggle_skill(self, scope: Scope, skill_id: str, *, actor: str, active: bool) -> MemoryNode:
        """Switch an approved skill of ``scope`` on or off."""
        return await self._procedural.toggle_skill(scope, skill_id, actor=actor, active=active)

    # -- prospective -----------------------------------------------------------------------
    async def set_trigger(
        self,
        scope: Scope,
        condition: str,
        task: str,
        *,
        due_at: float | None = None,
        importance: float = 6.0,
        about: Sequence[str] | None = None,
    ) -> MemoryNode:
        """Remember to do ``task`` when ``condition`` holds (or at ``due_at``)."""
        return await self._prospective.set_trigger(
            scope, condition, task, due_at=due_at, importance=importance, about=about
        )

    async def get_pending(
        self, scope: Scope, *, due_before: float | None = None, own: list[MemoryNode] | None = None
    ) -> list[MemoryNode]:
        """The unresolved triggers of exactly ``scope``, oldest first (due before ``due_before``)."""
        return await self._prospective.get_pending(scope, due_before=due_before, own=own)

    async def triggers_for_turn(
        self,
        scope: Scope,
        message: str,
        *,
        own: list[MemoryNode] | None = None,
        meaning_threshold: float | None = None,
        shown: Mapping[str, str] | None = None,
    ) -> list[RankedTrigger]:
        """The triggers a turn with ``message`` brings up, best first."""
        return await self._prospective.for_turn(
            scope, message, own=own, meaning_threshold=meaning_threshold, shown=shown
        )

    # -- episodic --------------------------------------------------------------------------
    async def store_event(
        self,
        scope: Scope,
        content: str,
        *,
        label: str = "",
        occurred_at: float | None = None,
        session_id: str | None = None,
        importance: float = 5.0,
        properties: dict[str, JsonValue] | None = None,
        context: str = "",
        mentions: Sequence[str] = (),
        node_id: str | None = None,
    ) -> MemoryNode:
        """Store one event of ``scope`` (chained after its session's previous one)."""
        return await self._episodic.store_event(
            scope, content, label=label, occurred_at=occurred_at, session_id=session_id, importance=importance,
            properties=properties, context=context, mentions=mentions, node_id=node_id,
        )  # fmt: skip

    async def query_events(
        self,
        scope: Scope,
        *,
        since: float | None = None,
        until: float | None = None,
        session_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[MemoryNode]:
        """The events ``scope`` sees, newest first, within ``since``–``until`` and ``session_id``."""
        return await self._episodic.query_events(
            scope, since=since, until=until, session_id=session_id, limit=limit, offset=offset
        )

    async def store_turn(
        self,
        scope: Scope,
        user: str,
        agent: str,
        *,
        session_id: str | None = None,
        mentions: Sequence[str] = (),
        occurred_at: float | None = None,
        drawn_from: Sequence[str] = (),
    ) -> MemoryNode:
        """Store one exchange as an episodic ``turn`` event, chained after its session's last."""
        return await self._episodic.store_turn(
            scope, user, agent, session_id=session_id, mentions=mentions, occurred_at=occurred_at,
            drawn_from=drawn_from,
        )  # fmt: skip

    async def store_actions(
        self, scope: Scope, request: str, actions: Sequence[ActionCall], *, turn_event_id: str | None = None
    ) -> MemoryNode | None:
        """Store what the agent did for ``request`` as an ``action`` event (``PART_OF`` the turn's)."""
        return await self._episodic.store_actions(scope, request, actions, turn_event_id=turn_event_id)

    async def count_events(self, scope: Scope, session_id: str | None = None) -> int:
        """How many events ``scope`` (of ``session_id``) holds."""
        return await self._episodic.count_events(scope, session_id)

    # -- working ---------------------------------------------------------------------------
    async def push_working(
        self,
        scope: Scope,
        text: str,
        *,
        kind: Literal["turn", "thinking"] = "turn",
        session_id: str | None = None,
        ttl: float = DAY,
        drawn_from: Sequence[str] = (),
    ) -> MemoryNode:
        """Put ``text`` into the conversation's working buffer (it expires after ``ttl``)."""
        return await self._working.push(scope, text, kind=kind, session_id=session_id, ttl=ttl, drawn_from=drawn_from)

    async def older_working(
        self, scope: Scope, *, session_id: str | None = None, verbatim: int | None = None
    ) -> list[MemoryNode]:
        """The working entries older than the ``verbatim`` a prompt shows as they are."""
        return await self._working.older(scope, session_id=session_id, verbatim=verbatim)

    def render_working(self, entry: MemoryNode | RecallItem) -> str:
        """A working entry as a prompt shows it."""
        return self._working.render_for_prompt(entry)
