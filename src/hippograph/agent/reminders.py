"""The turn's prospective memory and persona: which triggers fire (as ``TriggerFired``
events and the text of the ``reminders`` prompt section) and who the agent is (the
``persona`` section's text; both built-in sections of :mod:`hippograph.agent.prompts.sections`).

Evaluated at hydration, in both prompt modes: a trigger of the scope is due, or the
message names its condition or means it (:mod:`hippograph.layers.triggers`). A due trigger
is shown as fired once per session (``Session.reminded`` remembers it, and the graph with
the session's turns, so a resumed session does too) unless it fires anew. The persona's
``AGENT_IDENTITY`` is seeded once per scope (the turn's own scope by default, its root
when configured; under a database lock, so concurrent first turns make one node) after the first turn
that got its reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hippograph.agent.config import TriggerSettings
from hippograph.agent.events import TriggerFired
from hippograph.agent.prompts.sections import persona_text, reminders_text
from hippograph.layers.triggers import FireReason, RankedTrigger, firing_key
from hippograph.retrieval.context import handle_of
from hippograph.scope import Scope
from hippograph.scrub import scrub_text

if TYPE_CHECKING:
    from hippograph.agent.config import AgentConfig
    from hippograph.agent.sessions import Session
    from hippograph.layers.turn_reads import TurnReads
    from hippograph.memory import Memory

__all__ = ["PersonaSeeder", "Reminders", "identity_text", "reminders"]

SEEDED_CACHE = 1_000
"""Scopes remembered as seeded (a seeded-tenant cache); beyond it, a seed is a read."""


@dataclass
class Reminders:
    """The pending triggers of a turn, ranked, with the events of those that fired."""

    ranked: list[RankedTrigger] = field(default_factory=list)
    events: list[TriggerFired] = field(default_factory=list)
    text: str = ""


async def reminders(
    memory: Memory,
    scope: Scope,
    message: str,
    *,
    max_shown: int,
    turn_reads: TurnReads | None = None,
    settings: TriggerSettings | None = None,
    session: Session | None = None,
) -> Reminders:
    """Rank the scope's pending triggers for ``message``; every fired one is an event (all of
    them, even beyond ``max_shown``), the first ``max_shown`` are in the section. The
    triggers come from ``turn_reads`` when given (the turn's combined read). With
    ``settings`` conditions match by meaning too, and with ``session`` (and
    ``once_per_session``) a due trigger the session showed already waits (the session
    remembers the due ones that fire)."""
    s = settings or TriggerSettings(match_by_meaning=False, once_per_session=False)
    own = await turn_reads.prospective(scope) if turn_reads is not None else None
    once = s.once_per_session and session is not None
    ranked = await memory.triggers_for_turn(
        scope, message, own=own, meaning_threshold=s.meaning_threshold if s.match_by_meaning else None,
        shown=session.reminded if once and session is not None else None,
    )  # fmt: skip
    if once and session is not None:
        for r in ranked:
            if r.fired is FireReason.DUE:
                session.remind(r.node.id, firing_key(r.node))
    events = [
        TriggerFired(
            id=r.node.id,
            handle=handle_of(r.node.id),
            reason=r.fired.value,
            condition=scrub_text(str(r.node.properties.get("condition", ""))),
            task=scrub_text(str(r.node.properties.get("task", ""))),
            due_at=r.due_at,
            matched=list(r.matched),
            similarity=round(r.similarity, 4) if r.by_meaning and r.similarity is not None else None,
        )
        for r in ranked
        if r.fired is not None
    ]
    return Reminders(ranked, events, reminders_text(ranked, max_shown=max_shown))


def identity_text(config: AgentConfig) -> str:
    """The AGENT_IDENTITY a scope is seeded with: the configured one, or name and description."""
    p = config.persona
    return p.identity or f"I am {config.agent_name}. {config.agent_description}".strip()


class PersonaSeeder:
    """Renders the persona section's text, and seeds AGENT_IDENTITY once per scope after a turn that
    got its reply (a failed turn stores nothing; until the seed, the configured identity is
    shown)."""

    def __init__(self, config: AgentConfig, profile_keys: tuple[str, ...] | None) -> None:
        self._config, self._profile_keys = config, profile_keys
        self._seeded: dict[str, None] = {}

    def _home(self, scope: Scope) -> Scope:
        return scope if self._config.persona.seed_at == "scope" else Scope(scope.levels[:1])

    async def seed(self, memory: Memory, scope: Scope) -> None:
        """Seed the identity of ``scope``'s home (its root, or itself) unless done already
        (by this seeder, or found by :meth:`text` in this turn's read)."""
        home = self._home(scope)
        if not self._config.persona.seed_identity or home.key in self._seeded:
            return
        await memory.ensure_identity(home, identity_text(self._config))
        self._known(home)

    def _known(self, home: Scope) -> None:
        self._seeded[home.key] = None
        if len(self._seeded) > SEEDED_CACHE:
            self._seeded.pop(next(iter(self._seeded)))

    async def text(self, memory: Memory, scope: Scope, turn_reads: TurnReads | None = None) -> str:
        """The persona section's text as ``scope`` sees it (its nodes from ``turn_reads`` when given).
        An identity it finds at the scope's home counts as seeded: the seed after the turn
        then looks no further (a process's first turn in a tenant reads nothing more)."""
        nodes = await turn_reads.persona(scope) if turn_reads is not None else None
        persona = await memory.persona(scope, nodes=nodes)
        home = self._home(scope)
        if persona.identity is not None and persona.identity.scope_key == home.key:
            self._known(home)
        identity = persona.identity.content or persona.identity.label if persona.identity else None
        if identity is None and self._config.persona.seed_identity:
            identity = identity_text(self._config)
        return persona_text(identity, persona.profiles, profile_keys=self._profile_keys)
