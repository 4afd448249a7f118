"""Retrieval's queries (``cypher/retrieval``). A ``_LTS`` member is the Neo4j 5.26 form of the
statement it is named after (:class:`~hippograph.store.server_capabilities.ServerCapabilities`)."""

from __future__ import annotations

from enum import auto, nonmember

from hippograph.store.catalog import CypherQuery

__all__ = ["RetrievalQuery"]


class RetrievalQuery(CypherQuery):
    """Candidates, activation steps and the bookkeeping of a recall."""

    folder = nonmember("retrieval")

    SEARCH_FULLTEXT = auto()
    SEARCH_VECTOR_CANDIDATES = auto()
    SEARCH_VECTOR_CANDIDATES_LTS = auto()
    SEARCH_VECTOR_CANDIDATES_EXACT = auto()
    SEARCH_KEY_FULLTEXT = auto()
    SEARCH_KEY_VECTOR = auto()
    SEARCH_KEY_VECTOR_LTS = auto()
    GET_ASSOCIATIONS = auto()
    GET_RECALLED = auto()
    GET_ACTIVATION_STEP = auto()
    UPDATE_ACCESS_COUNTS = auto()
    UPDATE_SPREADING_ACCESS_COUNTS = auto()
    UPSERT_PENDING_LINKS = auto()
    GET_PERSON_CUES = auto()
    GET_SCOPE_SIZE = auto()
    GET_ERASING_SCOPES = auto()
    GET_TOPIC_COSINES = auto()
    GET_RECENT_SCOPE = auto()
