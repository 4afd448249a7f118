"""Imports every component's query enum so the catalog test can see them all."""

from hippograph.app.api.queries import ApiQuery
from hippograph.consolidation.queries import AuditQuery, ConsolidationQuery
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store.queries import StoreQuery

__all__ = ["ApiQuery", "AuditQuery", "ConsolidationQuery", "RetrievalQuery", "StoreQuery"]
