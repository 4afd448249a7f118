"""The access package's own Cypher (``cypher/access/``): API keys, the request ledger and the
daily token budgets. Run only by :mod:`hippograph.app.access.repository`."""

from __future__ import annotations

from enum import auto, nonmember

from hippograph.store.catalog import CypherQuery


class AccessQuery(CypherQuery):
    """Queries of the key store."""

    folder = nonmember("access")

    # schema
    CREATE_CONSTRAINT_API_KEY_ID = auto()
    CREATE_CONSTRAINT_API_KEY_HASH = auto()
    CREATE_CONSTRAINT_TOKEN_BUDGET_ID = auto()
    # keys and the request ledger
    UPSERT_API_KEY = auto()
    SEARCH_API_KEYS = auto()
    UPDATE_API_KEY_REVOKED = auto()
    UPDATE_API_KEY_USAGE = auto()
    DELETE_SCOPE_API_KEYS = auto()
    # token budgets
    GET_TOKEN_BUDGET = auto()
    UPDATE_TOKEN_BUDGET = auto()


SCHEMA_QUERIES: tuple[AccessQuery, ...] = (
    AccessQuery.CREATE_CONSTRAINT_API_KEY_ID,
    AccessQuery.CREATE_CONSTRAINT_API_KEY_HASH,
    AccessQuery.CREATE_CONSTRAINT_TOKEN_BUDGET_ID,
)
"""DDL the key store applies at start-up (all ``IF NOT EXISTS``)."""
