"""Procedural memory ("how"): skills with steps, status draft / approved / rejected, active.

A deeper scope's skill of a name shadows shallower ones. New skills merge into a similar one
of the same status (similarity ≥ 0.65; texts under 20 characters are not compared;
``authored`` skills are never merged): the merge keeps the longer label and content, the union
of steps and the highest importance. A merge never changes a skill's review state, so a
draft's steps never slip into an approved skill. Learned skills start as drafts (also those
written through the generic ``write``); approve / reject / toggle leave an audit entry each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import JsonValue

from hippograph.errors import InvalidInputError, NotFoundError
from hippograph.layers.base import MemoryLayer, Scrubber, make_node
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties

MERGE_SIMILARITY = 0.65
MIN_COMPARE_CHARS = 20
Status = Literal["draft", "approved", "rejected"]
STATUSES: tuple[Status, ...] = ("draft", "approved", "rejected")


class ProceduralMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.PROCEDURAL

    async def store_skill(
        self,
        scope: Scope,
        name: str,
        steps: Sequence[str],
        *,
        context: str = "",
        status: Status = "draft",
        importance: float = 5.0,
        authored: bool = False,
        properties: dict[str, JsonValue] | None = None,
    ) -> MemoryNode:
        """Store a skill, or merge it into a similar one of the same scope."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidInputError("name", "a skill needs a name")
        if isinstance(steps, str) or not all(isinstance(s, str) and s.strip() for s in steps):
            raise InvalidInputError("steps", "must be a list of non-empty strings")
        if status not in STATUSES:
            raise InvalidInputError("status", f"must be one of {list(STATUSES)}")
        now = self.services.clock()
        content = "\n".join(f"{i + 1}. {s.strip()}" for i, s in enumerate(steps))
        node = make_node(
            self.layer,
            {
                "label": ("authored:" if authored and not name.startswith("authored:") else "") + name.strip(),
                "content": content,
                # the bare name too, so "authored:deploy" is found by the word "deploy"
                "context": f"{name.strip().removeprefix('authored:')}. {context}".strip(),
                "importance": importance,
                "created_at": now,
                "updated_at": now,
                "properties": {
                    **(properties or {}),
                    "steps": [s.strip() for s in steps],
                    "context": context,
                    "status": status,
                    "active": status == "approved",
                    "authored": authored,
                },
            },
        )
        node = node.model_copy(update={"embedding": await self.services.embedder.embed(node.text)})
        if not authored and len(node.text) >= MIN_COMPARE_CHARS:
            similar = await self._similar(scope, node)
            if similar is not None:
                return await self._merge(scope, similar, node)
        return (await self.add(scope, [node]))[0]

    async def seed_authored_skill(
        self, scope: Scope, name: str, steps: Sequence[str], *, context: str = "", importance: float = 7.0
    ) -> MemoryNode:
        """A human-written skill: approved and active at once, never merged."""
        return await self.store_skill(
            scope, name, steps, context=context, status="approved", importance=importance, authored=True
        )

    async def query_skills(self, scope: Scope, *, include_inactive: bool = False) -> list[MemoryNode]:
        """Skills visible from ``scope``; of each name the deepest scope's wins."""
        nodes = await self.store.query_nodes(scope, {"layers": [Layer.PROCEDURAL]}, limit=None)
        best: dict[str, MemoryNode] = {}
        for node in sorted(nodes, key=lambda n: -n.scope_key.count("/")):
            if not include_inactive and not _usable(node):
                continue
            best.setdefault(node.label.removeprefix("authored:").casefold(), node)
        return sorted(best.values(), key=lambda n: (n.label, n.id))

    async def drafts(self, scope: Scope) -> list[MemoryNode]:
        nodes = await self.store.query_subtree(scope, {"layers": [Layer.PROCEDURAL]})
        return [n for n in nodes if n.properties.get("status") == "draft"]

    async def approve_skill(self, scope: Scope, skill_id: str, *, actor: str) -> MemoryNode:
        return await self._decide(scope, skill_id, actor, "approve", {"status": "approved", "active": True})

    async def reject_skill(self, scope: Scope, skill_id: str, *, actor: str, reason: str = "") -> MemoryNode:
        return await self._decide(
            scope, skill_id, actor, "reject", {"status": "rejected", "active": False, "rejection_reason": reason}
        )

    async def toggle_skill(self, scope: Scope, skill_id: str, *, actor: str, active: bool) -> MemoryNode:
        node = await self._owned_skill(scope, skill_id)
        if active and node.properties.get("status") != "approved":
            raise InvalidInputError("active", "only an approved skill can be switched on")
        return await self._decide(scope, skill_id, actor, "activate" if active else "deactivate", {"active": active})

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        node = entry.node if isinstance(entry, RecallItem) else entry
        steps = node.properties.get("steps") or []
        shown = " → ".join(str(s) for s in steps) if isinstance(steps, list) and steps else node.content
        text = f"[procedural] {node.label.removeprefix('authored:')}: {shown}"
        return self.scrub(text) if scrubber else text

    def _coerce(self, entry: MemoryNode | Mapping[str, Any] | str) -> MemoryNode:
        """A skill written through the generic ``write`` is a draft unless it says otherwise."""
        node = super()._coerce(entry)
        props = {"status": "draft", **node.properties}
        props.setdefault("active", props["status"] == "approved")
        return node.model_copy(update={"properties": props})

    async def _decide(
        self, scope: Scope, skill_id: str, actor: str, action: str, changes: dict[str, JsonValue]
    ) -> MemoryNode:
        if not isinstance(actor, str) or not actor.strip():
            raise InvalidInputError("actor", "every decision names who made it")
        node = await self._owned_skill(scope, skill_id)
        before = {k: node.properties.get(k) for k in changes}
        updated = await self.store.update_node(scope, skill_id, {"properties": {**node.properties, **changes}})
        await self.repo.record_audit(
            scope,
            actor=actor,
            action=f"skill.{action}",
            target=skill_id,
            detail={"before": before, "after": changes},
        )
        return updated

    async def _owned_skill(self, scope: Scope, skill_id: str) -> MemoryNode:
        node = await self.store.get_node(scope, skill_id)
        nodes = [node] if node else await self.store.query_subtree(scope, {"ids": [skill_id]})
        if not nodes or nodes[0] is None or nodes[0].layer is not Layer.PROCEDURAL:
            raise NotFoundError(f"no skill {skill_id} under {scope.key}")
        return nodes[0]

    async def _similar(self, scope: Scope, node: MemoryNode) -> MemoryNode | None:
        assert node.embedding is not None
        score = await self.nearest_own(scope, node.embedding, 5)
        for other in sorted(await self.store.get_nodes(scope, list(score)), key=lambda o: -score.get(o.id, 0.0)):
            authored = bool(other.properties.get("authored")) or other.label.startswith("authored:")
            same_status = other.properties.get("status") == node.properties.get("status")
            if (
                other.scope_key == scope.key
                and not authored
                and same_status
                and score.get(other.id, 0) >= MERGE_SIMILARITY
            ):
                return other
        return None

    async def _merge(self, scope: Scope, existing: MemoryNode, new: MemoryNode) -> MemoryNode:
        old_steps = existing.properties.get("steps") or []
        new_steps = new.properties.get("steps") or []
        steps = list(
            dict.fromkeys(
                [
                    *(old_steps if isinstance(old_steps, list) else []),
                    *(new_steps if isinstance(new_steps, list) else []),
                ]
            )
        )
        return await self.store.update_node(
            scope,
            existing.id,
            {
                "label": max(existing.label, new.label, key=len),
                "content": max(existing.content, new.content, key=len),
                "importance": max(existing.importance, new.importance),
                "properties": {**existing.properties, "steps": steps},
            },
        )


def _usable(node: MemoryNode) -> bool:
    return node.properties.get("status") == "approved" and node.properties.get("active") is not False
