"""Every component's query enum, imported here (the store's catalog knows none of them)."""

from __future__ import annotations

from hippograph.app.access.queries import AccessQuery
from hippograph.app.api.queries import ApiQuery
from hippograph.audit import AuditQuery
from hippograph.consolidation.queries import ConsolidationQuery
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.retrieval.statement import recall_stages, recall_statement
from hippograph.store.catalog import CypherQuery, RenderedQuery
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


def rendered_statements(*, lts: bool) -> dict[str, RenderedQuery]:
    """Every statement rendered from fragments for a server (``lts``: Neo4j 5.26), by its
    catalog name: the one recall statement and each of its fragments as a stage; the vector
    slots of a re-embedding render from these (``slot_query``)."""
    found = {q.path: q for q in (recall_statement(lts=lts), *(s.query for s in recall_stages(lts=lts)))}
    return found
