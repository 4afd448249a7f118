"""Who may do what, shared by the GraphQL API and the MCP server: API keys bound to a scope
with a role (:mod:`~hippograph.app.access.keys`), what a key reaches
(:mod:`~hippograph.app.access.reach`), per-key rate limits and per-scope daily token budgets
(:mod:`~hippograph.app.access.limits`), all kept in Neo4j by the
:class:`~hippograph.app.access.repository.KeyRepository`.
"""

from __future__ import annotations

from hippograph.app.access.keys import (
    ApiAuthError,
    PermissionDeniedError,
    Principal,
    Role,
    bearer_token,
    create_key,
    list_keys,
    revoke_key,
)
from hippograph.app.access.limits import (
    BudgetExceededError,
    RateLimitedError,
    authenticate,
    charged_scope,
    token_budget,
)
from hippograph.app.access.reach import Listing, Reach
from hippograph.app.access.repository import KeyRecord, KeyRepository

__all__ = [
    "ApiAuthError",
    "BudgetExceededError",
    "KeyRecord",
    "KeyRepository",
    "Listing",
    "PermissionDeniedError",
    "Principal",
    "RateLimitedError",
    "Reach",
    "Role",
    "authenticate",
    "bearer_token",
    "charged_scope",
    "create_key",
    "list_keys",
    "revoke_key",
    "token_budget",
]
