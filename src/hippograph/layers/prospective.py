"""Prospective memory ("future"): triggers — a condition to watch and the task to do then.
Seen only from its own scope, never returned by generic recall: read with ``get_pending``,
ranked for a turn with ``for_turn`` (when a trigger fires, by words or by meaning:
:mod:`hippograph.layers.triggers`).
Resolving and snoozing leave audit entries."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar

from hippograph.embeddings.memo import embed_once
from hippograph.errors import InvalidInputError, NotFoundError
from hippograph.layers.base import MemoryLayer, MemoryServices, Scrubber, make_node
from hippograph.layers.triggers import RankedTrigger, condition_topic, rank_triggers
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.context import HANDLE_CHARS, HANDLE_PREFIX
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties

MAX_ABOUT = 20
MAX_TOPIC_VECTORS = 4_096
"""Condition topics whose vectors a layer keeps (the oldest go first)."""
MAX_MESSAGE_CHARS = 2_000


class ProspectiveMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.PROSPECTIVE
    recallable: ClassVar[bool] = False

    def __init__(self, services: MemoryServices) -> None:
        super().__init__(services)
        self._topic_vectors: dict[str, list[float]] = {}

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

    async def for_turn(
        self,
        scope: Scope,
        message: str,
        *,
        own: list[MemoryNode] | None = None,
        meaning_threshold: float | None = None,
        shown: Mapping[str, str] | None = None,
    ) -> list[RankedTrigger]:
        """The scope's pending triggers for a turn whose message is ``message``: which fire
        now and in which order a prompt shows them (see :func:`rank_triggers`). ``own`` as
        in :meth:`get_pending`.

        Args:
            meaning_threshold: A condition also holds when the cosine similarity of the
                message's embedding to its topic's (the memory's embedder) is at least this;
                None matches by words only. Topics' vectors are kept for the process.
            shown: The due triggers the conversation already showed as fired (id → their
                :func:`~hippograph.layers.triggers.firing_key`): not fired again for being due.
        """
        pending = await self.get_pending(scope, own=own)
        similarity: dict[str, float] = {}
        if meaning_threshold is not None and message.strip():
            similarity = await self._similarity(pending, message)
        now = self.services.clock()
        return rank_triggers(pending, message, now, similarity=similarity, threshold=meaning_threshold, shown=shown)

    async def _similarity(self, pending: Sequence[MemoryNode], message: str) -> dict[str, float]:
        """Trigger id → cosine of ``message`` to the trigger's condition topic (waiting
        condition triggers only; vectors are L2-normalised, so the dot product)."""
        topics = {n.id: topic for n in pending if (topic := condition_topic(n))}
        if not topics:
            return {}
        missing = [t for t in dict.fromkeys(topics.values()) if t not in self._topic_vectors]
        embedder = self.services.embedder
        # the message as recall embeds it in the same turn (one embedding, see embed_once)
        said_vector, vectors = await asyncio.gather(
            embed_once(embedder, message[:MAX_MESSAGE_CHARS]), embedder.embed_batch(missing) if missing else _none()
        )
        for topic, vector in zip(missing, vectors, strict=True):
            self._topic_vectors[topic] = vector
        while len(self._topic_vectors) > MAX_TOPIC_VECTORS:
            self._topic_vectors.pop(next(iter(self._topic_vectors)))
        said = said_vector
        return {
            node_id: sum(a * b for a, b in zip(said, self._topic_vectors[topic], strict=True))
            for node_id, topic in topics.items()
            if topic in self._topic_vectors
        }

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


async def _none() -> list[list[float]]:
    return []
