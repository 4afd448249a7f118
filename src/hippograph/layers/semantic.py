"""Semantic memory ("what"): facts and entities as a graph.

Write-time dedup: a fact whose text is ≥ 0.85 similar to a live fact of the same scope, or
whose label contains (or is contained in) one, is merged into it — never into a version of
another subject ``key`` (a keyed write merged into an unkeyed duplicate gives it the key, as
the key's first version, so the key's history lists what the write returned). Facts change by
supersession, never by overwrite: a fact with the same subject ``key`` (or an explicit
``supersedes``) becomes current and the old one keeps its text with ``superseded_by`` and
``valid_until`` — recall prefers the current one. The same fact again (the same text under its
key, or a duplicate merged) confirms it: its ``updated_at`` moves to now, from which recall's
recency counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import JsonValue

from hippograph.cues import cues_of
from hippograph.errors import InvalidInputError
from hippograph.layers.base import MemoryLayer, Scrubber, make_node
from hippograph.models import Layer, MemoryNode, check_id
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties
from hippograph.store.locked import DEDUP_LOCK, LockedTx, run_locked

DEDUP_SIMILARITY = 0.85
DEDUP_CANDIDATES = 5
MIN_CONTAINMENT_CHARS = 4
AGENT_IDENTITY = "AGENT_IDENTITY"
SOUL_PREFIX = "SOUL:"
PROFILE_BOOKKEEPING = frozenset({"corrections", "rejected_corrections", "corrected_at", "merges"})
"""Properties of a SOUL profile that are the phase's bookkeeping, not the profile."""
MAX_QUEUED_CORRECTIONS = 50
MAX_PERSONA_NODES = 50


@dataclass(frozen=True)
class Persona:
    """The persona a scope sees: its AGENT_IDENTITY node and its SOUL profiles by name."""

    identity: MemoryNode | None
    profiles: dict[str, dict[str, JsonValue]]


def soul_label(name: str) -> str:
    """``SOUL:<name>`` for a profile name."""
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise InvalidInputError("name", "a profile name is a non-empty string of at most 80 characters")
    return f"{SOUL_PREFIX}{name.strip()}"


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _same_fact(previous: MemoryNode, node: MemoryNode) -> bool:
    """The same fact again: the label as a name (case and spacing aside), the content to the
    byte — content is kept as given, so an edit of its whitespace alone is a new version."""
    return _norm(previous.label) == _norm(node.label) and previous.content == node.content


class SemanticMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.SEMANTIC

    async def store_fact(
        self,
        scope: Scope,
        label: str,
        content: str = "",
        *,
        properties: dict[str, JsonValue] | None = None,
        importance: float = 5.0,
        key: str | None = None,
        supersedes: str | None = None,
        valid_from: float | None = None,
        context: str = "",
        dedup: bool = True,
    ) -> MemoryNode:
        """Store a fact (or merge it into its duplicate); returns the stored or merged node."""
        if not isinstance(label, str) or not label.strip():
            raise InvalidInputError("label", "a fact needs a non-empty label")
        now = self.services.clock()
        node = make_node(
            self.layer,
            {
                "label": label.strip(),
                "content": content,
                "properties": properties or {},
                "importance": importance,
                "key": key,
                "valid_from": valid_from if valid_from is not None else now,
                "context": context,
                "created_at": now,
                "updated_at": now,
            },
        )
        if supersedes is not None:
            await self._check_supersedable(scope, supersedes)
        node = self.scrub_node(node)
        node = node.model_copy(update={"embedding": await self.services.embedder.embed(node.text)})
        cues = cues_of(node)
        locks = ([key] if key and not supersedes else []) + ([DEDUP_LOCK] if dedup and supersedes is None else [])

        async def decide(tx: LockedTx) -> MemoryNode:
            """Under the locks, read the key's current version and the scope's duplicates,
            then write — nothing another writer does can land in between."""
            previous = await tx.current_fact(key) if key and not supersedes else None
            if previous is not None and _same_fact(previous, node):
                return await tx.update_node(previous, {"updated_at": now})  # the same fact again: confirmed
            if previous is None and supersedes is None and dedup:
                duplicate = await self._duplicate_in(tx, scope, node)
                if duplicate is not None:  # a keyed write names its duplicate's subject: its first version
                    adopt = {"key": key} if key and duplicate.key is None else {}
                    return await tx.update_node(
                        duplicate, {**_merge_updates(duplicate, node), **adopt, "updated_at": now}
                    )
            stored = await tx.add_node(node, cues)
            old = supersedes or (previous.id if previous else None)
            if old is not None:
                await tx.supersede(old, stored.id, self.services.clock())
            return stored

        return await run_locked(self.store, scope, locks, decide)

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        """Like every layer, plus a marker on facts that are no longer current, so the model
        does not take an old version for the truth."""
        line = super().render_for_prompt(entry, scrubber)
        node = entry.node if isinstance(entry, RecallItem) else entry
        return f"{line} [superseded]" if node.superseded_by else line

    async def supersede(self, scope: Scope, old_id: str, new_id: str) -> None:
        """Mark ``old_id`` superseded by ``new_id`` (both of this scope)."""
        if not await self.repo.supersede(scope, old_id, new_id, now=self.services.clock()):
            raise InvalidInputError("supersedes", f"{old_id} is not a fact of {scope.key}")

    async def _check_supersedable(self, scope: Scope, old_id: str) -> None:
        """Refuse, before anything is written, to supersede what is not a fact of this scope."""
        old = await self.store.get_node(scope, check_id(old_id, "supersedes"))
        if old is None or old.layer is not Layer.SEMANTIC or old.scope_key != scope.key:
            raise InvalidInputError("supersedes", f"{old_id} is not a fact of {scope.key}")

    async def query_facts(
        self,
        scope: Scope,
        *,
        label: str | None = None,
        label_prefix: str | None = None,
        include_superseded: bool = True,
        limit: int | None = 50,
    ) -> list[MemoryNode]:
        facts = await self.store.query_nodes(
            scope, {"layers": [Layer.SEMANTIC], "label": label, "label_prefix": label_prefix}, limit=limit
        )
        return facts if include_superseded else [f for f in facts if f.superseded_by is None]

    async def history(self, scope: Scope, key: str) -> list[MemoryNode]:
        """Every version of a keyed fact visible from ``scope``, oldest first."""
        facts = await self.store.query_nodes(scope, {"layers": [Layer.SEMANTIC]}, limit=None)
        return _in_supersession_order([f for f in facts if f.key == key])

    async def as_of(self, scope: Scope, key: str, at: float) -> MemoryNode | None:
        """The version of a keyed fact that was current at ``at`` (epoch seconds): the latest
        version valid from ``at`` or before and not yet superseded then; None before the first."""
        current = None
        for fact in await self.history(scope, key):
            start = fact.valid_from if fact.valid_from is not None else fact.created_at
            if start <= at and (fact.valid_until is None or at < fact.valid_until):
                current = fact
        return current

    async def ensure_identity(self, scope: Scope, description: str) -> MemoryNode:
        """The always-on AGENT_IDENTITY persona node of this scope (importance 10), seeded
        once: concurrent callers queue on a database lock and all get the one node; a later
        call with another description leaves the seeded one as it is."""
        if not isinstance(description, str) or not description.strip():
            raise InvalidInputError("description", "a persona needs a non-empty description")
        return await self._singleton(scope, AGENT_IDENTITY, description.strip())

    async def soul(self, scope: Scope, name: str, profile: dict[str, JsonValue] | None = None) -> MemoryNode:
        """The SOUL:<name> profile node of this scope, created on first use (once, as above)."""
        return await self._singleton(scope, soul_label(name), f"Profile of {name.strip()}", profile or {})

    async def correct_profile(
        self, scope: Scope, name: str, key: str, value: JsonValue, *, reason: str = "", actor: str = "user"
    ) -> MemoryNode:
        """Record a correction of ``key`` on this scope's ``SOUL:<name>`` profile (created if
        missing). Consolidation's soul_corrections phase applies it when the profile schema
        allows the key and keeps it aside otherwise; audited."""
        if not isinstance(key, str) or not key.strip():
            raise InvalidInputError("key", "a correction names a profile key")
        label = soul_label(name)
        correction: dict[str, JsonValue] = {"key": key.strip(), "value": value}

        async def decide(tx: LockedTx) -> MemoryNode:
            profile = await tx.current_fact(label)
            if profile is None:
                node = self._singleton_node(label, f"Profile of {name.strip()}", {"corrections": [correction]})
                return await tx.add_node(node, cues_of(node))
            pending = profile.properties.get("corrections")
            queued = pending if isinstance(pending, list) else []
            corrections: list[JsonValue] = [*queued, correction][-MAX_QUEUED_CORRECTIONS:]
            return await tx.update_node(profile, {"properties": {**profile.properties, "corrections": corrections}})

        profile = await run_locked(self.store, scope, [label], decide)
        await self.repo.record_audit(
            scope, actor=actor, action="profile.correct", target=profile.id, detail={**correction, "reason": reason}
        )
        return profile

    async def persona(self, scope: Scope, *, nodes: list[MemoryNode] | None = None) -> Persona:
        """What the prompt shows of the agent's persona from ``scope``: the deepest visible
        AGENT_IDENTITY, and each SOUL:<name> profile with its keys merged from the root down
        (a deeper scope's value wins); pending corrections are not applied yet. ``nodes``: the
        persona nodes the scope sees, already read this turn (read here if None)."""
        if nodes is None:
            nodes = await self.repo.persona_nodes(
                scope, identity=AGENT_IDENTITY, prefix=SOUL_PREFIX, limit=MAX_PERSONA_NODES
            )
        nodes = list(nodes)
        nodes.sort(key=lambda n: (Scope.parse(n.scope_key).depth, n.created_at, n.id))
        identity = None
        profiles: dict[str, dict[str, JsonValue]] = {}
        for node in nodes:
            if node.superseded_by is not None:
                continue
            if node.label == AGENT_IDENTITY:
                identity = node
            elif node.label.startswith(SOUL_PREFIX):
                shown = {k: v for k, v in node.properties.items() if k not in PROFILE_BOOKKEEPING}
                profiles.setdefault(node.label.removeprefix(SOUL_PREFIX), {}).update(shown)
        return Persona(identity, profiles)

    def _singleton_node(self, label: str, content: str, props: dict[str, JsonValue]) -> MemoryNode:
        now = self.services.clock()
        fields = {"label": label, "content": content, "properties": props, "importance": 10.0, "key": label}
        return make_node(self.layer, {**fields, "valid_from": now, "created_at": now, "updated_at": now})

    async def _singleton(
        self, scope: Scope, label: str, content: str, props: dict[str, JsonValue] | None = None
    ) -> MemoryNode:
        node = self._singleton_node(label, content, props or {})

        async def decide(tx: LockedTx) -> MemoryNode:
            existing = await tx.current_fact(label)
            return existing if existing is not None else await tx.add_node(node, cues_of(node))

        seeded = await self.repo.current_fact(scope, label)  # the common case: no lock, no write
        return seeded if seeded is not None else await run_locked(self.store, scope, [label], decide)

    async def _current_for_key(self, scope: Scope, key: str) -> MemoryNode | None:
        return await self.repo.current_fact(scope, key)

    async def _duplicate_in(self, tx: LockedTx, scope: Scope, node: MemoryNode) -> MemoryNode | None:
        assert node.embedding is not None
        score = await tx.nearest_own(self.layer, node.embedding, DEDUP_CANDIDATES)
        candidates = await tx.get_nodes(list(score))
        label = _norm(node.label)
        for other in sorted(candidates, key=lambda c: -score.get(c.id, 0.0)):
            if other.scope_key != scope.key or other.superseded_by or other.retracted or _protected(other):
                continue
            if other.key is not None and other.key != node.key:
                continue  # a version of another subject: merging would rewrite its history
            if score.get(other.id, 0.0) >= DEDUP_SIMILARITY:
                return other
            other_label = _norm(other.label)
            if min(len(label), len(other_label)) >= MIN_CONTAINMENT_CHARS and (
                label in other_label or other_label in label
            ):
                return other
        return None


def _in_supersession_order(facts: list[MemoryNode]) -> list[MemoryNode]:
    """Versions in the order they superseded each other (each chain from its first version),
    chains by their first version's start; the order of writing, whatever the clocks said."""
    by_id = {f.id: f for f in facts}
    newer = {f.superseded_by for f in facts if f.superseded_by in by_id}
    start = sorted((f for f in facts if f.id not in newer), key=lambda f: (f.valid_from or f.created_at, f.id))
    ordered: list[MemoryNode] = []
    seen: set[str] = set()
    for first in start:
        fact: MemoryNode | None = first
        while fact is not None and fact.id not in seen:
            ordered.append(fact)
            seen.add(fact.id)
            fact = by_id.get(fact.superseded_by) if fact.superseded_by else None
    ordered.extend(f for f in sorted(facts, key=lambda f: (f.valid_from or f.created_at, f.id)) if f.id not in seen)
    return ordered


def _merge_updates(existing: MemoryNode, new: MemoryNode) -> dict[str, Any]:
    """The fields a near-duplicate changes on the fact it is merged into."""
    merges = existing.properties.get("merges", 0)
    updates: dict[str, Any] = {
        "content": max(existing.content, new.content, key=len),
        "label": max(existing.label, new.label, key=len),
        "importance": max(existing.importance, new.importance),
        "properties": {
            **new.properties,
            **existing.properties,
            "merges": (merges if isinstance(merges, int) else 0) + 1,
        },
    }
    if updates["content"] != existing.content or updates["label"] != existing.label:
        updates["embedding"] = new.embedding if updates["content"] == new.content else existing.embedding
    return {k: v for k, v in updates.items() if v is not None}


def _protected(node: MemoryNode) -> bool:
    return node.label == AGENT_IDENTITY or node.label.startswith(SOUL_PREFIX)


def labels_of(nodes: Sequence[MemoryNode]) -> list[str]:
    return [n.label for n in nodes]
