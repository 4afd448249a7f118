# mypy: disable-error-code="untyped-decorator"
"""GraphQL types of scopes: a scope of the tenant tree with its ancestors, children and
counts, its subgraph, and its subtree at a glance for dashboards."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated

import strawberry
from strawberry.experimental import pydantic as from_model

from hippograph.app.access.reach import Listing as _Listing
from hippograph.app.api.repository import LayerCount as _LayerCount
from hippograph.app.api.repository import ScopeRow, Subgraph
from hippograph.app.api.schema.common import check_first, ctx, derived
from hippograph.app.api.schema.memories import Edge, Listing, Memory, PageInfo
from hippograph.models import Layer as _Layer


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
    node: Annotated[ScopeNode, strawberry.lazy("hippograph.app.api.schema.scopes")]


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
