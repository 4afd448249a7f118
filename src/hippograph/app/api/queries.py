"""The API's own Cypher (``cypher/api/``): API keys, the request ledger, token budgets, and the
reads a dashboard needs that the library does not offer (keyset pages, neighbourhoods,
paths, supersession chains, audit per memory, scope counts, export). Run only by
:mod:`hippograph.app.api.repository`."""

from __future__ import annotations

from hippograph.store.catalog import CypherQuery


class ApiQuery(CypherQuery):
    """Queries of the GraphQL API."""

    # schema
    CREATE_CONSTRAINT_API_KEY_ID = "api/create_constraint_api_key_id"
    CREATE_CONSTRAINT_API_KEY_HASH = "api/create_constraint_api_key_hash"
    CREATE_CONSTRAINT_TOKEN_BUDGET_ID = "api/create_constraint_token_budget_id"
    CREATE_INDEX_AUDIT_ENTRY_TARGET = "api/create_index_audit_entry_target"
    # keys, ledger, budgets
    UPSERT_API_KEY = "api/upsert_api_key"
    SEARCH_API_KEYS = "api/search_api_keys"
    UPDATE_API_KEY_REVOKED = "api/update_api_key_revoked"
    UPDATE_API_KEY_USAGE = "api/update_api_key_usage"
    GET_TOKEN_BUDGET = "api/get_token_budget"
    UPDATE_TOKEN_BUDGET = "api/update_token_budget"
    # memories
    SEARCH_MEMORIES_DESC = "api/search_memories_desc"
    SEARCH_MEMORIES_ASC = "api/search_memories_asc"
    GET_MEMORY_COUNT = "api/get_memory_count"
    GET_MEMORIES = "api/get_memories"
    SEARCH_NEIGHBOURS = "api/search_neighbours"
    SEARCH_SUPERSESSION_CHAINS = "api/search_supersession_chains"
    SEARCH_MEMORY_AUDIT = "api/search_memory_audit"
    GET_NEIGHBOURHOOD = "api/get_neighbourhood"
    SEARCH_PATHS = "api/search_paths"
    # scopes and stats
    GET_SCOPE = "api/get_scope"
    SEARCH_SCOPE_CHILDREN = "api/search_scope_children"
    GET_SCOPE_COUNTS = "api/get_scope_counts"
    GET_SCOPE_GROWTH = "api/get_scope_growth"
    GET_PENDING_LINK_COUNT = "api/get_pending_link_count"
    # export
    SEARCH_EXPORT_MEMORIES = "api/search_export_memories"
    SEARCH_EXPORT_EDGES = "api/search_export_edges"


SCHEMA_QUERIES: tuple[ApiQuery, ...] = (
    ApiQuery.CREATE_CONSTRAINT_API_KEY_ID,
    ApiQuery.CREATE_CONSTRAINT_API_KEY_HASH,
    ApiQuery.CREATE_CONSTRAINT_TOKEN_BUDGET_ID,
    ApiQuery.CREATE_INDEX_AUDIT_ENTRY_TARGET,
)
"""DDL the API applies at start-up (all ``IF NOT EXISTS``)."""
