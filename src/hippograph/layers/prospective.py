"""Prospective memory ("future"): triggers — a condition to watch and the task to do then.
Seen only from its own scope, never returned by generic recall: read with ``get_pending``,
ranked for a turn with ``for_turn`` (when a trigger fires: :mod:`hippograph.layers.triggers`).
Resolving and snoozing leave audit entries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar

from hippograph.errors import InvalidInputError, NotFoundError
from hippograph.layers.base import MemoryLayer, Scrubber, make_node
from hippograph.layers.triggers import RankedTrigger, rank_triggers
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.context import HANDLE_CHARS, HANDLE_PREFIX
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties

MAX_ABOUT = 20


class ProspectiveMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.PROSPECTIVE
    recallable: ClassVar[bool] = False

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
        """A trigger: a time trigger with ``due_at`` (epoch seconds), else a condition
        trigger that fires when a message names one of the ``about`` terms (a topic, a
        keyword, a person; default: the names and content words of ``condition``)."""
        for name, value in (("condition", condition), ("task", task)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidInputError(name, "must be a non-empty string")
        if about is not None and (
            isinstance(about, str) or len(about) > MAX_ABOUT or not all(isinstance(a, str) and a.strip() for a in about)
        ):
            raise InvalidInputError("about", f"must be a list of at most {MAX_ABOUT} non-empty strings")
        props: dict[str, Any] = {"condition": condition, "task": task, "resolved": False, "due_at": due_at}
        if about:
            props["about"] = [a.strip() for a in about]
        now = self.services.clock()
        node = make_node(
            self.layer,
            {
                "label": f"when {condition[:80]}",
                "content": f"When {condition}: {task}",
                "importance": importance,
                "properties": props,
                "created_at": now,
                "updated_at": now,
            },
        )
        return (await self.add(scope, [node]))[0]

    async def get_pending(
        self, scope: Scope, *, due_before: float | None = None, own: list[MemoryNode] | None = None
    ) -> list[MemoryNode]:
        """Unresolved triggers of exactly this scope, oldest first (optionally only those due).
        ``own``: the scope's own prospective memories already read this turn (read here if None)."""
        nodes = own if own is not None else await self.repo.own_nodes(scope, Layer.PROSPECTIVE)
        pending = [n for n in nodes if not n.properties.get("resolved")]
        if due_before is not None:
            pending = [n for n in pending if _due(n) is not None and _due(n) <= due_before]  # type: ignore[operator]
        return sorted(pending, key=lambda n: (n.created_at, n.id))

    async def for_turn(self, scope: Scope, message: str, *, own: list[MemoryNode] | None = None) -> list[RankedTrigger]:
        """The scope's pending triggers for a turn whose message is ``message``: which fire
        now and in which order a prompt shows them (see :func:`rank_triggers`). ``own`` as
        in :meth:`get_pending`."""
        return rank_triggers(await self.get_pending(scope, own=own), message, self.services.clock())

    async def resolve_trigger(
        self, scope: Scope, trigger_id: str, *, outcome: str = "", actor: str = "user"
    ) -> MemoryNode:
        """Mark a trigger of this scope done (it never fires again); audited.
        ``trigger_id`` may be the handle a prompt showed (``[id:…]``)."""
        changes: dict[str, Any] = {"resolved": True, "resolved_at": self.services.clock(), "outcome": outcome}
        return await self._decide(scope, trigger_id, actor, "resolve", changes)

    async def snooze_trigger(self, scope: Scope, trigger_id: str, until: float, *, actor: str = "user") -> MemoryNode:
        """Keep a trigger of this scope from firing before ``until`` (epoch seconds); audited."""
        if isinstance(until, bool) or not isinstance(until, (int, float)) or until != until:
            raise InvalidInputError("until", "must be a time in epoch seconds")
        return await self._decide(scope, trigger_id, actor, "snooze", {"snoozed_until": float(until)})

    async def _decide(
        self, scope: Scope, trigger_id: str, actor: str, action: str, changes: dict[str, Any]
    ) -> MemoryNode:
        if not isinstance(actor, str) or not actor.strip():
            raise InvalidInputError("actor", "every decision names who made it")
        node = await self._own_trigger(scope, trigger_id)
        before = {k: node.properties.get(k) for k in changes}
        updated = await self.store.update_node(scope, node.id, {"properties": {**node.properties, **changes}})
        await self.repo.record_audit(
            scope, actor=actor, action=f"trigger.{action}", target=node.id, detail={"before": before, "after": changes}
        )
        return updated

    async def _own_trigger(self, scope: Scope, ref: str) -> MemoryNode:
        """The trigger of exactly this scope named by its id or its prompt handle."""
        if not isinstance(ref, str) or not ref.strip():
            raise NotFoundError(f"no trigger {ref!r:.40} in {scope.key}")
        node = await self.store.get_node(scope, ref)
        if node is not None and node.layer is Layer.PROSPECTIVE and node.scope_key == scope.key:
            return node
        handle = ref.strip().removeprefix(HANDLE_PREFIX)
        if len(handle) >= HANDLE_CHARS:
            found = [n for n in await self.get_pending(scope) if n.id.startswith(handle)]
            if len(found) == 1:
                return found[0]
        raise NotFoundError(f"no trigger {ref:.60} in {scope.key}")

    async def retrieve(self, scope: Scope, query: str, top_k: int = 5) -> list[RecallItem]:
        return []

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        node = entry.node if isinstance(entry, RecallItem) else entry
        props: Mapping[str, Any] = node.properties
        due = _due(node)
        at = f" (due {_iso(due)})" if due is not None else ""
        text = f"[prospective] when {props.get('condition', '')}{at}: {props.get('task', '')}"
        return self.scrub(text) if scrubber else text


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="minutes")


def _due(node: MemoryNode) -> float | None:
    value = node.properties.get("due_at")
    return float(value) if isinstance(value, (int, float)) else None
