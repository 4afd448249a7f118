"""Episodic memory ("when"): events — every turn as "User: … | Agent: …" (importance 3.0),
what the agent did in a turn (its tool calls, as one ``action`` event ``PART_OF`` the turn)
and extracted events. Turns of a session form a ``NEXT`` chain; an event ``MENTIONS`` the
facts it talks about, so facts have provenance and conversations are paths."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import JsonValue

from hippograph.errors import InvalidInputError
from hippograph.layers.base import MemoryLayer, Scrubber, make_node
from hippograph.models import MAX_LABEL, Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.retrieval.derived import DRAWN_FROM, MAX_DRAWN_FROM
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties

TURN_IMPORTANCE = 3.0
ACTION_IMPORTANCE = 4.0
MAX_ACTIONS = 20
MAX_ARGUMENT_CHARS = 200
MAX_REQUEST_CHARS = 200


def turn_text(user: str, agent: str) -> str:
    return f"User: {user} | Agent: {agent}"


@dataclass(frozen=True)
class ActionCall:
    """One thing the agent did in a turn: a tool it called, with what, and whether it worked."""

    tool: str
    arguments: Mapping[str, JsonValue] = field(default_factory=dict)
    ok: bool = True


def action_label(actions: Sequence[ActionCall]) -> str:
    """``check logs, restart service``: the tools in call order, as words (the pattern phase
    12 counts; a repeated call is named once)."""
    names = dict.fromkeys(a.tool.replace("_", " ").replace("-", " ").strip() for a in actions)
    return ", ".join(n for n in names if n)[:MAX_LABEL]


def action_steps(actions: Sequence[ActionCall]) -> list[JsonValue]:
    """The calls as the steps of a procedure: ``tool(arg, …)`` with the argument names only, so
    the same procedure on other values reads the same."""
    return [f"{a.tool}({', '.join(sorted(a.arguments))})" for a in actions]


def action_text(request: str, actions: Sequence[ActionCall]) -> str:
    """One sentence per call, with its arguments, after the request."""
    asked = " ".join(request.split())
    asked = asked if len(asked) <= MAX_REQUEST_CHARS else asked[: MAX_REQUEST_CHARS - 1] + "…"
    lines = [f"Asked: {asked}{'' if asked[-1] in '.!?…' else '.'}"] if asked else []
    for a in actions:
        args = json.dumps(dict(a.arguments), ensure_ascii=False, sort_keys=True, default=str)
        args = args if len(args) <= MAX_ARGUMENT_CHARS else args[: MAX_ARGUMENT_CHARS - 1] + "…"
        lines.append(f"Called {a.tool} with {args}{'' if a.ok else ' (it failed)'}.")
    return " ".join(lines)


class EpisodicMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.EPISODIC

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
        """Store one event; chain it after the session's latest event; link its mentions."""
        content, context = self.scrub(content), self.scrub(context)  # credentials never enter memory
        properties = self.services.scrubber.properties(properties or {})
        now = self.services.clock()
        fields: dict[str, Any] = {
            "label": label or content[:100],
            "content": content,
            "session_id": session_id,
            "occurred_at": occurred_at if occurred_at is not None else now,
            "importance": importance,
            "properties": properties or {},
            "context": context,
            "created_at": now,
            "updated_at": now,
        }
        if node_id is not None:
            fields["id"] = node_id
        node = make_node(self.layer, fields)
        tail = None
        if session_id is not None:
            tail = await self.repo.session_tail(scope, self.layer, session_id)
        stored = (await self.add(scope, [node]))[0]
        edges = [MemoryEdge(source=stored.id, target=m, relationship=Relationship.MENTIONS) for m in mentions]
        if tail is not None and tail.id != stored.id:
            edges.append(MemoryEdge(source=tail.id, target=stored.id, relationship=Relationship.NEXT))
        await self.store.upsert_edges(scope, edges, increment=0.0)
        return stored

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
        """A chat turn as an event of importance 3.0. ``drawn_from``: the memories the answer
        was drawn from (visible from ``scope``): kept in ``properties.drawn_from``, each linked
        ``DERIVED_FROM``, so that recall ranks the turn below them."""
        properties: dict[str, JsonValue] = {"kind": "turn"}
        sources = list(dict.fromkeys(drawn_from))[:MAX_DRAWN_FROM]
        if sources:
            properties[DRAWN_FROM] = list(sources)
        stored = await self.store_event(
            scope,
            turn_text(user, agent),
            label=f"turn: {user[:80]}",
            session_id=session_id,
            importance=TURN_IMPORTANCE,
            properties=properties,
            mentions=mentions,
            occurred_at=occurred_at,
        )
        edges = [MemoryEdge(source=stored.id, target=s, relationship=Relationship.DERIVED_FROM) for s in sources]
        await self.store.upsert_edges(scope, edges, increment=0.0)
        return stored

    async def store_actions(
        self, scope: Scope, request: str, actions: Sequence[ActionCall], *, turn_event_id: str | None = None
    ) -> MemoryNode | None:
        """What the agent did in one turn as an ``action`` event (importance 4.0), ``PART_OF``
        the turn's event when given; None when it did nothing. Phase 12 learns draft skills
        from actions that recur."""
        calls = [a for a in actions if a.tool.strip()][:MAX_ACTIONS]
        label = action_label(calls)
        if not label:
            return None
        event = await self.store_event(
            scope,
            action_text(request, calls),
            label=label,
            importance=ACTION_IMPORTANCE,
            properties={
                "kind": "action",
                "tools": [a.tool for a in calls],
                "steps": action_steps(calls),
                "failed": sum(not a.ok for a in calls),
            },
        )
        if turn_event_id is not None:
            edge = MemoryEdge(source=event.id, target=turn_event_id, relationship=Relationship.PART_OF)
            await self.store.upsert_edges(scope, [edge], increment=0.0)
        return event

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
        """Events visible from ``scope``, newest first, optionally in a window or session."""
        for name, value in (("limit", limit), ("offset", offset)):
            if not isinstance(value, int) or value < 0:
                raise InvalidInputError(name, "must be an integer ≥ 0")
        return await self.repo.search_events(
            scope, since=since, until=until, session_id=session_id, limit=limit, offset=offset
        )

    async def list_events(self, scope: Scope, limit: int = 50, offset: int = 0) -> list[MemoryNode]:
        return await self.query_events(scope, limit=limit, offset=offset)

    async def count_events(self, scope: Scope, session_id: str | None = None) -> int:
        return await self.count(scope, session_id)

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        node = entry.node if isinstance(entry, RecallItem) else entry
        return self.scrub(render_event(node)) if scrubber else render_event(node)


def render_event(node: MemoryNode) -> str:
    """``[episodic] (8 May 2023) Caroline: …`` for turns, ``[episodic] …`` otherwise."""
    props = node.properties
    when = f"({props['date']}) " if isinstance(props.get("date"), str) and props.get("date") else ""
    who = f"{props['speaker']}: " if isinstance(props.get("speaker"), str) else ""
    return f"[episodic] {when}{who}{node.content or node.label}"
