"""Episodic memory ("when"): events — every turn as "User: … | Agent: …" (importance 3.0)
and extracted events. Turns of a session form a ``NEXT`` chain; an event ``MENTIONS`` the
facts it talks about, so facts have provenance and conversations are paths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import JsonValue

from hippograph.errors import InvalidInputError
from hippograph.layers.base import MemoryLayer, Scrubber, make_node
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties, scrub_text

TURN_IMPORTANCE = 3.0


def turn_text(user: str, agent: str) -> str:
    return f"User: {user} | Agent: {agent}"


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
        content, context = scrub_text(content), scrub_text(context)  # credentials never enter memory
        properties = scrub_properties(properties or {})
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
    ) -> MemoryNode:
        """A chat turn as an event of importance 3.0."""
        return await self.store_event(
            scope,
            turn_text(user, agent),
            label=f"turn: {user[:80]}",
            session_id=session_id,
            importance=TURN_IMPORTANCE,
            properties={"kind": "turn"},
            mentions=mentions,
            occurred_at=occurred_at,
        )

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
        return scrub_text(render_event(node)) if scrubber else render_event(node)


def render_event(node: MemoryNode) -> str:
    """``[episodic] (8 May 2023) Caroline: …`` for turns, ``[episodic] …`` otherwise."""
    props = node.properties
    when = f"({props['date']}) " if isinstance(props.get("date"), str) and props.get("date") else ""
    who = f"{props['speaker']}: " if isinstance(props.get("speaker"), str) else ""
    return f"[episodic] {when}{who}{node.content or node.label}"
