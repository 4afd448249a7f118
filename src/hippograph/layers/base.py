"""The uniform layer protocol and what every layer shares.

Every layer answers ``retrieve``, ``write``, ``summarize``, ``link``, ``delete`` and
``render_for_prompt``; an operation that means nothing for a layer is a no-op, never an error.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hippograph.cues import cues_of
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import InvalidInputError, validation_errors
from hippograph.layers.repository import LayerRepository
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship, check_id
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import Scrubber as CredentialScrubber
from hippograph.scrub import scrub_properties
from hippograph.store.graph_store import GraphStore

Scrubber = Callable[[Mapping[str, Any]], dict[str, Any]]
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass
class MemoryServices:
    """What the layers share: the store, the embedder, the recall engine, a clock and the
    credential scrubber applied on every write and render."""

    store: GraphStore
    embedder: EmbeddingProvider
    engine: RecallEngine
    clock: Callable[[], float] = field(default=time.time)
    scrubber: CredentialScrubber = field(default_factory=CredentialScrubber.default)


def make_node(layer: Layer, fields: Mapping[str, Any], field_prefix: str = "entry") -> MemoryNode:
    """Build a node, turning validation errors into an InvalidInputError naming the field."""
    with validation_errors(field_prefix, empty="entry"):
        node = MemoryNode.model_validate({**fields, "layer": layer})
    return node


def extractive_summary(texts: Sequence[str], max_chars: int = 2000) -> str:
    """First and last sentence of each text, joined — the extractive mode."""
    parts = []
    for text in texts:
        sentences = [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]
        if not sentences:
            continue
        parts.append(sentences[0] if len(sentences) == 1 else f"{sentences[0]} … {sentences[-1]}")
    return "\n".join(parts)[:max_chars]


class MemoryLayer:
    """Base of the five layers."""

    layer: ClassVar[Layer]
    recallable: ClassVar[bool] = True

    def __init__(self, services: MemoryServices) -> None:
        self.services = services
        self.store = services.store
        self.repo = LayerRepository(services.store)

    # -- the uniform protocol --------------------------------------------------------------
    async def retrieve(self, scope: Scope, query: str, top_k: int = 5) -> list[RecallItem]:
        if not self.recallable:
            return []
        result = await self.services.engine.recall(scope, query, layers=[self.layer], top_k=top_k)
        return result.items

    async def write(self, scope: Scope, entry: MemoryNode | Mapping[str, Any] | str) -> MemoryNode | None:
        node = self._coerce(entry)
        return (await self.add(scope, [node]))[0]

    async def summarize(self, scope: Scope, entries: Sequence[MemoryNode | RecallItem | str]) -> str:
        texts = [e if isinstance(e, str) else (e.node if isinstance(e, RecallItem) else e).text for e in entries]
        return extractive_summary(texts)

    async def link(self, scope: Scope, source: str, target: str, relationship: Relationship | str) -> MemoryEdge | None:
        check_id(source, "source")
        check_id(target, "target")
        return await self.store.link(scope, source, target, Relationship.parse(relationship))

    async def delete(self, scope: Scope, node_id: str) -> bool:
        return await self.store.delete_node(scope, node_id, cascade=True)

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        node = entry.node if isinstance(entry, RecallItem) else entry
        props = self._props_scrubber(scrubber)(node.properties) if scrubber else dict(node.properties)
        shown = ", ".join(f"{k}={v}" for k, v in props.items() if not isinstance(v, (dict, list)))
        text = self.scrub(node.text) if scrubber else node.text
        return f"[{self.layer.value}] {text}" + (f" ({shown})" if shown else "")

    # -- credentials -----------------------------------------------------------------------
    def scrub(self, text: str) -> str:
        """``text`` with credentials masked by the memory's scrubber."""
        return self.services.scrubber.text(text)

    def scrub_node(self, node: MemoryNode) -> MemoryNode:
        """``node`` with its texts and properties scrubbed (credentials never enter memory)."""
        s = self.services.scrubber
        update: dict[str, Any] = {"properties": s.properties(node.properties)}
        for name in ("label", "content", "context"):
            value = getattr(node, name)
            if value:
                update[name] = s.text(value)
        return node.model_copy(update=update)

    def _props_scrubber(self, scrubber: Scrubber) -> Scrubber:
        """The default property scrubber is the memory's configured one; a caller's own wins."""
        return self.services.scrubber.properties if scrubber is scrub_properties else scrubber

    # -- shared helpers --------------------------------------------------------------------
    def _coerce(self, entry: MemoryNode | Mapping[str, Any] | str) -> MemoryNode:
        if isinstance(entry, MemoryNode):
            if entry.layer is not self.layer:
                raise InvalidInputError("entry.layer", f"expected {self.layer.value}, got {entry.layer.value}")
            return entry
        if isinstance(entry, str):
            return make_node(self.layer, {"content": entry, "label": entry[:100]})
        return make_node(self.layer, entry)

    async def add(
        self, scope: Scope, nodes: Sequence[MemoryNode], *, edges: Sequence[MemoryEdge] = ()
    ) -> list[MemoryNode]:
        """Embed what lacks an embedding (one batch) and write all nodes, their cues and
        ``edges`` (ends among ``nodes`` or visible from ``scope``) in one transaction; every
        node's texts and properties are scrubbed of credentials first."""
        nodes = [self.scrub_node(n) for n in nodes]
        missing = [n for n in nodes if n.embedding is None and n.text]
        if missing:
            vectors = await self.services.embedder.embed_batch([n.text for n in missing])
            by_id = {n.id: v for n, v in zip(missing, vectors, strict=True)}
            nodes = [n.model_copy(update={"embedding": by_id[n.id]}) if n.id in by_id else n for n in nodes]
        return await self.store.add_nodes(scope, nodes, cues={n.id: cues_of(n) for n in nodes}, edges=edges)

    async def nearest_own(self, scope: Scope, vector: Sequence[float], k: int) -> dict[str, float]:
        """Cosine of the ``k`` memories of this layer in exactly ``scope`` nearest ``vector``, for
        write-time merges: an ancestor's memories (which a write here never changes) cannot
        crowd this scope's own out of the candidates."""
        return await self.repo.nearest_own(scope, self.layer, vector, k)

    async def count(self, scope: Scope, session_id: str | None = None) -> int:
        return await self.repo.count(scope, self.layer, session_id)
