# mypy: disable-error-code="untyped-decorator"
"""GraphQL types of memories: a memory with its neighbours, versions and audit entries,
its edges, and the paged listings of memories."""

from __future__ import annotations

import time
from enum import Enum
from typing import Annotated, Any

import strawberry
from strawberry.experimental import pydantic as from_model
from strawberry.scalars import JSON

from hippograph.app.access.reach import Listing as _Listing
from hippograph.app.api.repository import Neighbour as _Neighbour
from hippograph.app.api.schema.common import check_first, ctx, derived
from hippograph.audit import AuditEntry as _AuditEntry
from hippograph.models import Layer as _Layer
from hippograph.models import MemoryEdge, MemoryNode

Layer = strawberry.enum(_Layer, name="Layer", description="The five memory layers.")
Listing = strawberry.enum(_Listing, name="Listing", description="Which memories a listing at a scope shows.")


@strawberry.enum(description="Order of a memory listing (keyset-paged by created_at, then id).")
class MemorySort(Enum):
    CREATED_DESC = "created_desc"
    CREATED_ASC = "created_asc"


@from_model.type(MemoryEdge, all_fields=True, description="A weighted, typed link between two memories.")
class Edge:
    id: strawberry.ID
    source: strawberry.ID
    target: strawberry.ID
    relationship: str  # a StrEnum member is its value
    provenance: str


@from_model.type(_AuditEntry, all_fields=True, description="A recorded decision (approve, reject, toggle, restore …).")
class AuditEntry:
    id: strawberry.ID
    detail: JSON


@strawberry.type(description="A neighbour of a memory and the edge that links them.")
class Neighbour:
    memory: Annotated[Memory, strawberry.lazy("hippograph.app.api.schema.memories")]
    edge: Edge
    direction: str = strawberry.field(description="OUT when the edge starts at the memory, else IN.")

    @classmethod
    def of(cls, n: _Neighbour) -> Neighbour:
        return cls(memory=Memory.of(n.node), edge=derived(Edge, n.edge), direction="OUT" if n.outgoing else "IN")


@strawberry.type(description="One memory of one layer, with its detail resolved on demand.")
class Memory:
    node: strawberry.Private[MemoryNode]
    id: strawberry.ID
    layer: Layer  # type: ignore[valid-type]
    label: str
    content: str
    context: str
    properties: JSON
    scope_key: str
    session_id: str | None
    key: str | None
    created_at: float
    updated_at: float
    occurred_at: float | None
    access_count: int
    importance: float
    durability: str
    valid_from: float | None
    valid_until: float | None
    superseded_by: str | None
    retracted: bool
    retracted_at: float | None
    retraction: JSON | None

    @classmethod
    def of(cls, n: MemoryNode) -> Memory:
        return cls(
            node=n,
            id=strawberry.ID(n.id),
            layer=n.layer,
            label=n.label,
            content=n.content,
            context=n.context,
            properties=JSON(n.properties),
            scope_key=n.scope_key,
            session_id=n.session_id,
            key=n.key,
            created_at=n.created_at,
            updated_at=n.updated_at,
            occurred_at=n.occurred_at,
            access_count=n.access_count,
            importance=n.importance,
            durability=n.durability.value,
            valid_from=n.valid_from,
            valid_until=n.valid_until,
            superseded_by=n.superseded_by,
            retracted=n.retracted,
            retracted_at=n.retracted_at,
            retraction=JSON(n.retraction) if n.retraction is not None else None,
        )

    @strawberry.field(description="Restorable now: retracted and still within the grace period.")
    def restorable(self, info: strawberry.Info) -> bool:
        if not self.node.retracted or self.node.retracted_at is None:
            return False
        grace = ctx(info).services.consolidator.config.retraction_grace
        return time.time() <= self.node.retracted_at + grace

    @strawberry.field(description="Neighbours within reach, heaviest edges first (one batched call per page).")
    async def neighbours(self, info: strawberry.Info, first: int = 20) -> list[Neighbour]:
        context = ctx(info)
        check_first(first, context.services.settings.neighbours_per_memory)
        found = await context.loaders.neighbours.load(self.node.id)
        return [Neighbour.of(n) for n in found[:first]]

    @strawberry.field(description="Every version of this fact linked by SUPERSEDES, oldest first.")
    async def supersession_chain(self, info: strawberry.Info) -> list[Memory]:
        chain = await ctx(info).loaders.chain.load(self.node.id)
        return [Memory.of(n) for n in chain]

    @strawberry.field(description="Decisions recorded about this memory, newest first.")
    async def audit_entries(self, info: strawberry.Info) -> list[AuditEntry]:
        entries = await ctx(info).loaders.audit.load(self.node.id)
        return [derived(AuditEntry, a) for a in entries]


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None

    @classmethod
    def of(cls, cursors: list[str], has_next_page: bool, after: str | None) -> PageInfo:
        """The page info of a keyset page whose edges have ``cursors``, asked for after ``after``."""
        return cls(
            has_next_page=has_next_page,
            has_previous_page=after is not None,
            start_cursor=cursors[0] if cursors else None,
            end_cursor=cursors[-1] if cursors else None,
        )


@strawberry.type
class MemoryEdgeCursor:
    cursor: str
    node: Memory


@strawberry.type(description="A Relay connection of memories; totalCount runs only when selected.")
class MemoryConnection:
    edges: list[MemoryEdgeCursor]
    page_info: PageInfo
    count_args: strawberry.Private[Any]

    @strawberry.field(description="Memories the listing selects in all (a separate count; ask only if needed).")
    async def total_count(self, info: strawberry.Info) -> int:
        listing, where = self.count_args
        return int(await ctx(info).services.repo.memories.count(listing, where))
