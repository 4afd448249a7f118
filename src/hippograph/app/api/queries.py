"""The API's own Cypher (``cypher/api/``): the reads a dashboard needs that the library does not
offer (keyset pages, neighbourhoods, paths, supersession chains, audit per memory, scope
counts, export). Run only by :mod:`hippograph.app.api.repository`; the key store's queries
are :class:`hippograph.app.access.queries.AccessQuery`."""

from __future__ import annotations

from enum import auto, nonmember

from hippograph.store.catalog import CypherQuery


class ApiQuery(CypherQuery):
    """Queries of the GraphQL API."""

    folder = nonmember("api")

    # schema
    CREATE_INDEX_AUDIT_ENTRY_TARGET = auto()
    # memories
    SEARCH_MEMORIES_DESC = auto()
    SEARCH_MEMORIES_ASC = auto()
    GET_MEMORY_COUNT = auto()
    GET_MEMORIES = auto()
    SEARCH_NEIGHBOURS = auto()
    SEARCH_SUPERSESSION_CHAINS = auto()
    SEARCH_MEMORY_AUDIT = auto()
    GET_NEIGHBOURHOOD = auto()
    SEARCH_PATHS = auto()
    # scopes and stats
    GET_SCOPE = auto()
    SEARCH_SCOPE_CHILDREN = auto()
    SEARCH_SCOPES = auto()
    SEARCH_ROOT_SCOPES = auto()
    GET_SCOPE_COUNTS = auto()
    GET_SCOPE_GROWTH = auto()
    GET_PENDING_LINK_COUNT = auto()
    # export
    SEARCH_EXPORT_MEMORIES = auto()
    SEARCH_EXPORT_EDGES = auto()
    GET_STORED_NODE_COUNT = auto()


SCHEMA_QUERIES: tuple[ApiQuery, ...] = (ApiQuery.CREATE_INDEX_AUDIT_ENTRY_TARGET,)
"""DDL the API applies at start-up besides the key store's (all ``IF NOT EXISTS``)."""
