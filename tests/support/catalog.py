"""Every component's query enum, imported here (the store's catalog knows none of them)."""

from __future__ import annotations

from hippograph.app.access.queries import AccessQuery
from hippograph.app.api.queries import ApiQuery
from hippograph.audit import AuditQuery
from hippograph.consolidation.queries import ConsolidationQuery
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store.catalog import CypherQuery
from hippograph.store.queries import MemoryQuery, SchemaQuery

QUERY_ENUMS: tuple[type[CypherQuery], ...] = (
    SchemaQuery,
    MemoryQuery,
    RetrievalQuery,
    ConsolidationQuery,
    AuditQuery,
    ApiQuery,
    AccessQuery,
)


def all_queries() -> list[CypherQuery]:
    """Every member of every component's query enum."""
    return [q for enum in QUERY_ENUMS for q in enum]
