"""Prospective memory ("future"): triggers — a condition to watch and the task to do then.
Seen only from its own scope, never returned by generic recall: read with ``get_pending``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hippograph.errors import InvalidInputError, NotFoundError
from hippograph.layers.base import MemoryLayer, Scrubber, make_node
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties, scrub_text


class ProspectiveMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.PROSPECTIVE
    recallable: ClassVar[bool] = False

    async def set_trigger(
        self, scope: Scope, condition: str, task: str, *, due_at: float | None = None, importance: float = 6.0
    ) -> MemoryNode:
        for name, value in (("condition", condition), ("task", task)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidInputError(name, "must be a non-empty string")
        now = self.services.clock()
        node = make_node(
            self.layer,
            {
                "label": f"when {condition[:80]}",
                "content": f"When {condition}: {task}",
                "importance": importance,
                "properties": {"condition": condition, "task": task, "resolved": False, "due_at": due_at},
                "created_at": now,
                "updated_at": now,
            },
        )
        return (await self.add(scope, [node]))[0]

    async def get_pending(self, scope: Scope, *, due_before: float | None = None) -> list[MemoryNode]:
        """Unresolved triggers of exactly this scope, oldest first (optionally only those due)."""
        nodes = await self.store.query_nodes(scope, {"layers": [Layer.PROSPECTIVE]}, limit=None)
        pending = [n for n in nodes if n.scope_key == scope.key and not n.properties.get("resolved")]
        if due_before is not None:
            pending = [n for n in pending if _due(n) is not None and _due(n) <= due_before]  # type: ignore[operator]
        return sorted(pending, key=lambda n: (n.created_at, n.id))

    async def resolve_trigger(self, scope: Scope, trigger_id: str, *, outcome: str = "") -> MemoryNode:
        node = await self.store.get_node(scope, trigger_id)
        if node is None or node.layer is not Layer.PROSPECTIVE or node.scope_key != scope.key:
            raise NotFoundError(f"no trigger {trigger_id} in {scope.key}")
        props: dict[str, Any] = {
            **node.properties,
            "resolved": True,
            "resolved_at": self.services.clock(),
            "outcome": outcome,
        }
        return await self.store.update_node(scope, trigger_id, {"properties": props})

    async def retrieve(self, scope: Scope, query: str, top_k: int = 5) -> list[RecallItem]:
        return []

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        node = entry.node if isinstance(entry, RecallItem) else entry
        props: Mapping[str, Any] = node.properties
        text = f"[prospective] when {props.get('condition', '')}: {props.get('task', '')}"
        return scrub_text(text) if scrubber else text


def _due(node: MemoryNode) -> float | None:
    value = node.properties.get("due_at")
    return float(value) if isinstance(value, (int, float)) else None
