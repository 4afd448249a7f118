"""Per-request DataLoaders: a page of memories with their neighbours, supersession chains and
audit entries costs one Cypher call per kind of detail, not one per memory. Subscriptions get
uncached loaders (a websocket context lives for many operations)."""

from __future__ import annotations

from collections.abc import Sequence

from strawberry.dataloader import DataLoader

from hippograph.app.access.reach import Reach
from hippograph.app.api.repository import ApiRepository, LayerCount, Neighbour, ScopeCountKey
from hippograph.audit import AuditEntry
from hippograph.models import MemoryNode

AUDIT_PER_MEMORY = 50


class Loaders:
    """One set per request, bound to what the principal may reach."""

    def __init__(self, repo: ApiRepository, reach: Reach, *, neighbours_limit: int, cache: bool = True) -> None:
        self.repo = repo
        self.reach = reach
        self.neighbours_limit = neighbours_limit
        self.memory: DataLoader[str, MemoryNode | None] = DataLoader(self._memories, cache=cache)
        self.neighbours: DataLoader[str, list[Neighbour]] = DataLoader(self._neighbours, cache=cache)
        self.chain: DataLoader[str, list[MemoryNode]] = DataLoader(self._chains, cache=cache)
        self.audit: DataLoader[str, list[AuditEntry]] = DataLoader(self._audit, cache=cache)
        self.counts: DataLoader[ScopeCountKey, list[LayerCount]] = DataLoader(self._counts, cache=cache)

    async def _memories(self, ids: Sequence[str]) -> list[MemoryNode | None]:
        found = await self.repo.memories.by_ids(self.reach, ids)
        return [found.get(i) for i in ids]

    async def _neighbours(self, ids: Sequence[str]) -> list[list[Neighbour]]:
        found = await self.repo.graph.neighbours(self.reach, ids, self.neighbours_limit)
        return [found.get(i, []) for i in ids]

    async def _chains(self, ids: Sequence[str]) -> list[list[MemoryNode]]:
        found = await self.repo.graph.supersession_chains(self.reach, ids)
        return [found.get(i, []) for i in ids]

    async def _audit(self, ids: Sequence[str]) -> list[list[AuditEntry]]:
        found = await self.repo.memories.audit_entries(self.reach, ids, AUDIT_PER_MEMORY)
        return [found.get(i, []) for i in ids]

    async def _counts(self, keys: Sequence[ScopeCountKey]) -> list[list[LayerCount]]:
        found = await self.repo.scopes.counts(keys)
        return [found[k] for k in keys]
