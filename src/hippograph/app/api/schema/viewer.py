# mypy: disable-error-code="untyped-decorator"
"""Who is asking: the request's key, its role, and the scopes it acts on — what a dashboard
needs to offer a scope picker after someone pastes a key."""

from __future__ import annotations

import strawberry

from hippograph.app.access.keys import Principal
from hippograph.app.api.schema.common import check_first, ctx
from hippograph.app.api.schema.scopes import ScopeConnection


@strawberry.type(description="The API key of this request: its scope, its role and the scopes it acts on.")
class Viewer:
    key_id: strawberry.ID | None = strawberry.field(description="Null in development mode (no keys).")
    key_name: str | None
    role: str = strawberry.field(description="reader, writer or admin.")
    scope_key: str | None = strawberry.field(
        description="The scope the key is bound to; null in development mode (it acts on every scope)."
    )

    @classmethod
    def of(cls, principal: Principal) -> Viewer:
        key = principal.key
        return cls(
            key_id=strawberry.ID(key.id) if key else None,
            key_name=key.name if key else None,
            role=principal.role.value,
            scope_key=principal.scope.key if principal.scope else None,
        )

    @strawberry.field(
        description="Scopes the key acts on (its own and every one below it) that memories were written to, by key."
    )
    async def scopes(self, info: strawberry.Info, first: int = 20, after: str | None = None) -> ScopeConnection:
        context = ctx(info)
        check_first(first, context.services.settings.max_first)
        scope = context.principal.scope
        key, prefix = (scope.key, scope.subtree_prefix) if scope else ("", "")
        rows = await context.services.repo.scopes.within(key, prefix, after, first + 1)
        return ScopeConnection.page(rows, first, after)
