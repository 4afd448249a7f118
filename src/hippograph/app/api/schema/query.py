# mypy: disable-error-code="untyped-decorator"
"""The read side: the scope tree, memory listings, detail, graph views, recall with its
explanation, context assembly, procedures, triggers, consolidation runs and stats; for admin
keys, the settings the server runs with."""

from __future__ import annotations

import base64
import binascii
import json
from enum import Enum
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from hippograph.app.access.keys import PermissionDeniedError, Role
from hippograph.app.access.reach import Listing as _Listing
from hippograph.app.access.reach import Reach
from hippograph.app.api.repository import MemoryFilter as _MemoryFilter
from hippograph.app.api.repository import ScopeRow
from hippograph.app.api.schema.common import check_first, ctx
from hippograph.app.api.schema.consolidation import ConsolidationReport
from hippograph.app.api.schema.memories import (
    Layer,
    Listing,
    Memory,
    MemoryConnection,
    MemoryEdgeCursor,
    MemorySort,
    PageInfo,
)
from hippograph.app.api.schema.recall import MemoryContext, RecallResult
from hippograph.app.api.schema.scopes import GraphView, ScopeCounts, ScopeNode, ScopeStats
from hippograph.app.api.schema.viewer import Viewer
from hippograph.app.api.settings import effective_settings
from hippograph.errors import InvalidInputError
from hippograph.models import Layer as _Layer
from hippograph.models import check_id

MAX_HOPS = 3
MAX_ACTIVATION_HOPS = 4
MAX_PATH_HOPS = 6
NEIGHBOURHOOD_LIMIT = 200


def encode_cursor(created_at: float, node_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created_at, node_id]).encode()).decode()


def decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        created_at, node_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return float(created_at), check_id(node_id, "after")
    except (ValueError, TypeError, binascii.Error, UnicodeError):
        raise InvalidInputError("after", "not a cursor of this listing") from None


@strawberry.input(description="Filters of a memory listing; unset fields do not filter.")
class MemoryWhere:
    layers: list[Layer] | None = None  # type: ignore[valid-type]
    retracted: bool | None = None
    superseded: bool | None = None
    session_id: str | None = None
    created_after: float | None = None
    created_before: float | None = None
    text: str | None = strawberry.field(default=None, description="Case-insensitive substring of label or content.")
    listing: Listing = _Listing.OWN  # type: ignore[valid-type]

    def to_filter(self) -> _MemoryFilter:
        if self.text is not None and len(self.text) > 200:
            raise InvalidInputError("where.text", "longer than 200 characters")
        return _MemoryFilter(
            layers=tuple(_Layer(x) for x in self.layers or ()),
            retracted=self.retracted,
            superseded=self.superseded,
            session_id=self.session_id,
            created_after=self.created_after,
            created_before=self.created_before,
            text=self.text,
        )


@strawberry.enum(description="Review state of a procedure (skill).")
class ProcedureStatus(Enum):
    DRAFT = "draft"
    APPROVED = "approved"
    REJECTED = "rejected"


@strawberry.type
class Query:
    @strawberry.field(description="The key of this request: its role, its scope and the scopes it acts on.")
    def viewer(self, info: strawberry.Info) -> Viewer:
        return Viewer.of(ctx(info).principal)

    @strawberry.field(description="A scope of the tree the key acts on; null when outside it or never used.")
    async def scope(
        self,
        info: strawberry.Info,
        key: str,
        namespace: Annotated[
            str | None,
            strawberry.argument(description="This namespace of the key's path (or name it in the key: …/@support)."),
        ] = None,
    ) -> ScopeNode | None:
        context = ctx(info)
        principal = context.principal
        from hippograph.scope import Scope

        target = Scope.parse(key, namespace=namespace)
        if not principal.acts_on(target):
            return None
        row = await context.services.repo.scopes.get(target.key)
        if row is None:
            missing = ScopeRow(key=target.key, kind=target.kind, id=target.id, depth=target.depth)
            return ScopeNode.of(missing, exists=False)
        return ScopeNode.of(row)

    @strawberry.field(description="Memories of a scope as a Relay connection, keyset-paged by (createdAt, id).")
    async def memories(
        self,
        info: strawberry.Info,
        scope: str,
        where: MemoryWhere | None = None,
        sort: MemorySort = MemorySort.CREATED_DESC,
        first: int = 20,
        after: str | None = None,
    ) -> MemoryConnection:
        context = ctx(info)
        target = context.principal.target(scope)
        check_first(first, context.services.settings.max_first)
        where = where or MemoryWhere()
        listing = Reach.listing(target, _Listing(where.listing))
        flt = where.to_filter()
        cursor = decode_cursor(after) if after else None
        nodes = await context.services.repo.memories.page(
            listing, flt, ascending=sort is MemorySort.CREATED_ASC, after=cursor, limit=first + 1
        )
        page = nodes[:first]
        edges = [MemoryEdgeCursor(cursor=encode_cursor(n.created_at, n.id), node=Memory.of(n)) for n in page]
        return MemoryConnection(
            edges=edges,
            page_info=PageInfo.of([e.cursor for e in edges], len(nodes) > first, after),
            count_args=(listing, flt),
        )

    @strawberry.field(description="A memory by id; null when it does not exist or is out of reach.")
    async def node(self, info: strawberry.Info, id: strawberry.ID) -> Memory | None:
        found = await ctx(info).loaders.memory.load(check_id(str(id), "id"))
        return Memory.of(found) if found else None

    @strawberry.field(description="The memories within `hops` (1..3) of a memory and the edges between them.")
    async def neighbourhood(self, info: strawberry.Info, id: strawberry.ID, hops: int = 1) -> GraphView | None:
        context = ctx(info)
        check_first(hops, MAX_HOPS, "hops")
        graph = await context.services.repo.graph.neighbourhood(
            context.principal.reach, check_id(str(id), "id"), hops, NEIGHBOURHOOD_LIMIT
        )
        return GraphView.of(graph) if graph else None

    @strawberry.field(description="Shortest paths between two memories (at most `maxHops`, up to 6).")
    async def paths(
        self,
        info: strawberry.Info,
        from_: Annotated[strawberry.ID, strawberry.argument(name="from")],
        to: strawberry.ID,
        max_hops: int = 4,
        first: int = 5,
    ) -> list[GraphView]:
        context = ctx(info)
        check_first(max_hops, MAX_PATH_HOPS, "maxHops")
        check_first(first, context.services.settings.max_first)
        graphs = await context.services.repo.graph.paths(
            context.principal.reach, check_id(str(from_), "from"), check_id(str(to), "to"), max_hops, first
        )
        return [GraphView.of(g) for g in graphs]

    @strawberry.field(description="Hybrid recall with spreading activation, every item explained.")
    async def recall(
        self,
        info: strawberry.Info,
        scope: str,
        query: str,
        first: int = 10,
        layers: list[Layer] | None = None,  # type: ignore[valid-type]
        hops: int | None = None,
    ) -> RecallResult:
        context = ctx(info)
        target = context.principal.target(scope)
        check_first(first, context.services.settings.max_first)
        memory = context.services.memory
        config = None
        if hops is not None:
            if not 0 <= hops <= MAX_ACTIVATION_HOPS:
                raise InvalidInputError("hops", f"must be between 0 and {MAX_ACTIVATION_HOPS}")
            base = memory.recall_config
            config = base.model_copy(update={"activation": base.activation.model_copy(update={"max_hops": hops})})
        result = await memory.recall(
            target, query, top_k=first, layers=[_Layer(x) for x in layers] if layers else None, config=config
        )
        context.services.metrics.observe_recall(result.timings)
        return RecallResult.of(result)

    @strawberry.field(description="The prompt's memory block for a query within a token budget.")
    async def context(
        self,
        info: strawberry.Info,
        scope: str,
        query: str,
        budget: int | None = None,
        first: int | None = None,
    ) -> MemoryContext:
        context = ctx(info)
        target = context.principal.target(scope)
        if budget is not None:
            check_first(budget, 100_000, "budget")
        if first is not None:
            check_first(first, context.services.settings.max_first)
        result, assembled = await context.services.memory.context(target, query, budget=budget, top_k=first)
        return MemoryContext.of(result, assembled)

    @strawberry.field(description="Procedures (skills) visible from a scope, optionally of one review status.")
    async def procedures(
        self, info: strawberry.Info, scope: str, status: ProcedureStatus | None = None
    ) -> list[Memory]:
        context = ctx(info)
        target = context.principal.target(scope)
        skills = await context.services.memory.query_skills(target, include_inactive=True)
        wanted = status.value if status else None
        return [Memory.of(s) for s in skills if wanted is None or s.properties.get("status") == wanted]

    @strawberry.field(description="Unresolved prospective triggers of exactly this scope, oldest first.")
    async def triggers(self, info: strawberry.Info, scope: str, due_before: float | None = None) -> list[Memory]:
        context = ctx(info)
        target = context.principal.target(scope)
        pending = await context.services.memory.get_pending(target, due_before=due_before)
        return [Memory.of(n) for n in pending]

    @strawberry.field(description="Reports of the consolidation runs started on a scope, newest first.")
    async def consolidation_runs(
        self, info: strawberry.Info, scope: str, first: int = 20, offset: int = 0
    ) -> list[ConsolidationReport]:
        context = ctx(info)
        target = context.principal.target(scope)
        check_first(first, context.services.settings.max_first)
        if not 0 <= offset <= 100_000:
            raise InvalidInputError("offset", "must be between 0 and 100000")
        runs = await context.services.consolidator.list_runs(target, limit=first, offset=offset)
        return [ConsolidationReport.of(r) for r in runs]

    @strawberry.field(description="Counts by layer and state, pending links and growth of a scope's subtree.")
    async def stats(self, info: strawberry.Info, scope: str) -> ScopeStats:
        context = ctx(info)
        target = context.principal.target(scope)
        counts = await context.loaders.counts.load((target.key, target.subtree_prefix))
        pending = await context.services.repo.scopes.pending_links(target.key, target.subtree_prefix)
        return ScopeStats(
            scope_key=target.key, counts=ScopeCounts.of(counts), pending_links=pending, prefix=target.subtree_prefix
        )

    @strawberry.field(
        description="The settings the server runs with, the served agent's included (`api.agent`, "
        "`api.consolidation`, `api.nightly`), secrets masked. Admin keys only."
    )
    def server_settings(self, info: strawberry.Info) -> JSON:
        context = ctx(info)
        if context.principal.role is not Role.ADMIN:
            raise PermissionDeniedError(f"a {context.principal.role.value} key cannot read the server's settings")
        return JSON(effective_settings(context.services.settings, context.services.app_settings))
