# mypy: disable-error-code="untyped-decorator"
"""GraphQL types of the library's models: derived from the pydantic models with Strawberry's
pydantic integration (``from_model.type``, converted by :func:`derived`) where that keeps the
served schema as it is, else a small explicit mapping (``.of``). The integration puts fields
that are not the model's (resolvers, extra fields) first and takes each description from the
model, so the types with resolvers or descriptions of their own are written out."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from enum import Enum
from typing import Annotated, Any, TypeVar

import strawberry
from pydantic import BaseModel
from strawberry.experimental import pydantic as from_model
from strawberry.scalars import JSON

from hippograph.app.access.reach import Listing as _Listing
from hippograph.app.api.repository import LayerCount as _LayerCount
from hippograph.app.api.repository import Neighbour as _Neighbour
from hippograph.app.api.repository import ScopeRow, Subgraph
from hippograph.app.api.schema.common import check_first, ctx
from hippograph.audit import AuditEntry as _AuditEntry
from hippograph.consolidation import ConsolidationReport as _Report
from hippograph.consolidation import PhaseReport as _PhaseReport
from hippograph.models import Layer as _Layer
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.retrieval import types as _recall
from hippograph.retrieval.context import MemoryContext as _MemoryContext
from hippograph.retrieval.types import Channel as _Channel
from hippograph.retrieval.types import RecallItem as _RecallItem
from hippograph.retrieval.types import RecallResult as _RecallResult

T = TypeVar("T")


def derived(edge_type: type[T], value: BaseModel) -> T:
    """The GraphQL value of a domain model, for a type built from it with ``from_model.type``."""
    converted: T = edge_type.from_pydantic(value)  # type: ignore[attr-defined]
    return converted


Layer = strawberry.enum(_Layer, name="Layer", description="The five memory layers.")
Channel = strawberry.enum(_Channel, name="Channel", description="Which retrieval channel found a memory.")
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
    memory: Annotated[Memory, strawberry.lazy("hippograph.app.api.schema.types")]
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


@from_model.type(_LayerCount, all_fields=True)
class LayerCount:
    pass


@strawberry.type
class ScopeCounts:
    total: int
    retracted: int
    superseded: int
    by_layer: list[LayerCount]

    @classmethod
    def of(cls, counts: list[_LayerCount]) -> ScopeCounts:
        return cls(
            total=sum(c.total for c in counts),
            retracted=sum(c.retracted for c in counts),
            superseded=sum(c.superseded for c in counts),
            by_layer=[derived(LayerCount, c) for c in sorted(counts, key=lambda c: c.layer.value)],
        )


@strawberry.type(description="A scope above the one asked for (its key only).")
class ScopeRef:
    key: str
    kind: str
    id: str
    depth: int


@strawberry.type
class ScopeChildEdge:
    cursor: str
    node: Annotated[ScopeNode, strawberry.lazy("hippograph.app.api.schema.types")]


@strawberry.type
class ScopeConnection:
    edges: list[ScopeChildEdge]
    page_info: PageInfo

    @classmethod
    def page(cls, rows: list[ScopeRow], first: int, after: str | None) -> ScopeConnection:
        """A page of scopes from ``first + 1`` rows in key order (the extra row says there is more)."""
        edges = [ScopeChildEdge(cursor=r.key, node=ScopeNode.of(r)) for r in rows[:first]]
        return cls(edges=edges, page_info=PageInfo.of([e.cursor for e in edges], len(rows) > first, after))


@strawberry.type(description="A scope of the tenant tree the key acts on.")
class ScopeNode:
    key: str
    kind: str
    id: str
    depth: int
    exists: bool = strawberry.field(description="False when no memory was ever written there.")

    @classmethod
    def of(cls, row: ScopeRow, exists: bool = True) -> ScopeNode:
        return cls(key=row.key, kind=row.kind, id=row.id, depth=row.depth, exists=exists)

    @strawberry.field(description="The namespace this scope partitions its path into; null for none.")
    def namespace(self) -> str | None:
        from hippograph.scope import Scope

        return Scope.parse(self.key).namespace

    @strawberry.field(description="The id of the path's root level: the tenant.")
    def tenant_id(self) -> str:
        from hippograph.scope import Scope

        return Scope.parse(self.key).tenant_id

    @strawberry.field(description="The id of the path's second level; null for a root scope.")
    def sub_tenant_id(self) -> str | None:
        from hippograph.scope import Scope

        return Scope.parse(self.key).sub_tenant_id

    @strawberry.field(description="Root first, without this scope.")
    def ancestors(self) -> list[ScopeRef]:
        from hippograph.scope import Scope

        return [
            ScopeRef(key=s.key, kind=s.kind, id=s.id, depth=s.depth) for s in Scope.parse(self.key).ancestors()[:-1]
        ]

    @strawberry.field
    async def children(self, info: strawberry.Info, first: int = 20, after: str | None = None) -> ScopeConnection:
        context = ctx(info)
        check_first(first, context.services.settings.max_first)
        rows = await context.services.repo.scopes.children(self.key, after, first + 1)
        return ScopeConnection.page(rows, first, after)

    @strawberry.field(description="Memory counts: OWN (default) or the whole SUBTREE of this scope.")
    async def counts(self, info: strawberry.Info, listing: Listing = _Listing.OWN) -> ScopeCounts:  # type: ignore[valid-type]
        from hippograph.scope import Scope

        scope = Scope.parse(self.key)
        prefix = scope.subtree_prefix if listing is _Listing.SUBTREE else None
        if listing is _Listing.VISIBLE:
            keys = scope.ancestor_keys()
            counts = await ctx(info).loaders.counts.load_many([(k, None) for k in keys])
            merged: dict[_Layer, _LayerCount] = {}
            for c in (c for cs in counts for c in cs):
                old = merged.get(c.layer)
                merged[c.layer] = (
                    c
                    if old is None
                    else _LayerCount(
                        layer=c.layer,
                        total=old.total + c.total,
                        retracted=old.retracted + c.retracted,
                        superseded=old.superseded + c.superseded,
                    )
                )
            return ScopeCounts.of(list(merged.values()))
        return ScopeCounts.of(await ctx(info).loaders.counts.load((self.key, prefix)))


@strawberry.type
class GraphView:
    nodes: list[Memory]
    edges: list[Edge]

    @classmethod
    def of(cls, g: Subgraph) -> GraphView:
        return cls(nodes=[Memory.of(n) for n in g.nodes], edges=[derived(Edge, e) for e in g.edges])


# -- recall and context --------------------------------------------------------------------
# Written out: Strawberry's pydantic integration takes each field's description from the
# pydantic model, which would drop the two below.
@strawberry.type(description="How a memory's score came about (see the library's ScoreParts).")
class ScoreParts:
    relevance: float
    cosine: float | None
    bm25: float | None
    z_vector: float
    z_fulltext: float
    person: float
    topic: float = strawberry.field(
        description="Person-centred recall's part (0 unless RecallConfig.topic_weight is set"
        " and the query names one person)."
    )
    edges: float
    session: float
    cues: float
    recency: float
    recency_counted: bool = strawberry.field(
        description="False when recency had no weight in this recall"
        " (by default: the query did not ask about the recent)."
    )
    timeless: bool = strawberry.field(
        description="True when recency is 1 because the memory is a current kept fact"
        " (RecallConfig.current_facts_timeless)."
    )
    frequency: float
    proximity: float
    scope_weight: float
    time_match: float
    currency: float = strawberry.field(description="1 for a current fact; below 1 for a superseded or expired one.")
    answer: float = strawberry.field(
        description="Below 1 for a conversation turn that asks (RecallConfig.question_turn_factor)."
    )
    importance: float = strawberry.field(
        description="(importance / 5) ** RecallConfig.importance_weight: 1 for a fact of default importance."
    )
    key: str | None = strawberry.field(
        default=None,
        description="The key (an index entry enrichment wrote for this memory) through which a channel"
        " found it, when it scored higher than the memory's own text.",
    )


@strawberry.type
class ChannelRank:
    channel: Channel  # type: ignore[valid-type]
    rank: int


@from_model.type(_recall.PathStep, all_fields=True)
class PathStep:
    node_id: strawberry.ID


@strawberry.type(description="One recalled memory and why.")
class RecallItem:
    memory: Memory
    score: float
    parts: ScoreParts
    channels: list[ChannelRank]
    path: list[PathStep]
    scope_distance: int
    explanation: str

    @classmethod
    def of(cls, item: _RecallItem) -> RecallItem:
        return cls(
            memory=Memory.of(item.node),
            score=item.score,
            parts=ScoreParts(**item.parts.model_dump()),
            channels=[ChannelRank(channel=c, rank=r) for c, r in sorted(item.channels.items())],
            path=[derived(PathStep, s) for s in item.path],
            scope_distance=item.scope_distance,
            explanation=item.explain(),
        )


@from_model.type(_recall.ActivatedNode, all_fields=True)
class ActivatedNode:
    id: strawberry.ID


@from_model.type(_recall.PendingConnection, all_fields=True)
class PendingConnection:
    source: strawberry.ID
    target: strawberry.ID


@from_model.type(_recall.ActivationLog, all_fields=True, description="Spreading activation's account of itself.")
class ActivationLog:
    seeds: list[strawberry.ID]


@from_model.type(_recall.RecallTimings, all_fields=True, description="Milliseconds per recall stage.")
class RecallTimings:
    pass


@strawberry.type
class RecallResult:
    query: str
    scope_key: str
    items: list[RecallItem]
    activation: ActivationLog
    timings: RecallTimings

    @classmethod
    def of(cls, r: _RecallResult) -> RecallResult:
        return cls(
            query=r.query,
            scope_key=r.scope_key,
            items=[RecallItem.of(i) for i in r.items],
            activation=derived(ActivationLog, r.activation),
            timings=derived(RecallTimings, r.timings),
        )


@strawberry.type(description="A memory that won a place in the prompt.")
class ContextEntry:
    id: strawberry.ID
    layer: Layer  # type: ignore[valid-type]
    text: str
    tokens: int
    explanation: str


@strawberry.type(description="A recalled memory left out to stay within the budget.")
class NearMiss:
    id: strawberry.ID
    score: float | None
    memory: Memory | None


@strawberry.type(description="The prompt's memory block within a token budget, and what it cost.")
class MemoryContext:
    text: str
    tokens: int
    budget: int
    entries: list[ContextEntry]
    dropped: list[NearMiss]
    recall: RecallResult

    @classmethod
    def of(cls, result: _RecallResult, c: _MemoryContext) -> MemoryContext:
        by_id = {i.node.id: i for i in result.items}
        dropped = []
        for d in c.dropped:
            item = by_id.get(d)
            dropped.append(
                NearMiss(
                    id=strawberry.ID(d),
                    score=item.score if item else None,
                    memory=Memory.of(item.node) if item else None,
                )
            )
        return cls(
            text=c.text,
            tokens=c.tokens,
            budget=c.budget,
            entries=[
                ContextEntry(
                    id=strawberry.ID(e.id), layer=e.layer, text=e.text, tokens=e.tokens, explanation=e.explanation
                )
                for e in c.entries
            ],
            dropped=dropped,
            recall=RecallResult.of(result),
        )


# -- consolidation ---------------------------------------------------------------------------
@strawberry.type
class PhaseReport:
    name: str
    number: str
    status: str
    skip_reason: str | None
    counts: JSON
    duration_ms: float

    @classmethod
    def of(cls, p: _PhaseReport) -> PhaseReport:
        return cls(
            name=p.name.value,
            number=p.number,
            status=p.status.value,
            skip_reason=p.skip_reason,
            counts=JSON(dict(p.counts)),
            duration_ms=p.duration_ms,
        )


@strawberry.type(description="What one consolidation run did.")
class ConsolidationReport:
    run_id: strawberry.ID
    scope_key: str
    entry_point: str
    status: str
    skip_reason: str | None
    error: str | None
    started_at: float
    finished_at: float | None
    duration_ms: float
    phases: list[PhaseReport]
    totals: JSON

    @classmethod
    def of(cls, r: _Report) -> ConsolidationReport:
        return cls(
            run_id=strawberry.ID(r.run_id),
            scope_key=r.scope_key,
            entry_point=r.entry_point.value,
            status=r.status.value,
            skip_reason=r.skip_reason,
            error=r.error,
            started_at=r.started_at,
            finished_at=r.finished_at,
            duration_ms=r.duration_ms,
            phases=[PhaseReport.of(p) for p in r.phases_run],
            totals=JSON(r.totals),
        )


# -- stats -------------------------------------------------------------------------------
@strawberry.type
class DayCount:
    day: str
    created: int


@strawberry.type(description="A scope's subtree at a glance, for dashboards.")
class ScopeStats:
    scope_key: str
    counts: ScopeCounts
    pending_links: int
    prefix: strawberry.Private[str]

    @strawberry.field(description="Memories created per UTC day over the last `days` days.")
    async def growth(self, info: strawberry.Info, days: int = 30) -> list[DayCount]:
        check_first(days, 366, "days")
        since = time.time() - days * 86_400
        rows = await ctx(info).services.repo.scopes.growth(self.scope_key, self.prefix, since)
        return [DayCount(day=datetime.fromtimestamp(d * 86_400, UTC).strftime("%Y-%m-%d"), created=n) for d, n in rows]
