"""Retrieval's queries."""

from __future__ import annotations

from hippograph.store.catalog import CypherQuery


class RetrievalQuery(CypherQuery):
    SEARCH_FULLTEXT = "retrieval/search_fulltext"
    SEARCH_VECTOR_CANDIDATES = "retrieval/search_vector_candidates"
    SEARCH_VECTOR_CANDIDATES_EXACT = "retrieval/search_vector_candidates_exact"
    GET_ASSOCIATIONS = "retrieval/get_associations"
    GET_RECALLED = "retrieval/get_recalled"
    GET_ACTIVATION_STEP = "retrieval/get_activation_step"
    UPDATE_ACCESS_COUNTS = "retrieval/update_access_counts"
    UPDATE_SPREADING_ACCESS_COUNTS = "retrieval/update_spreading_access_counts"
    UPSERT_PENDING_LINKS = "retrieval/upsert_pending_links"
    GET_PERSON_CUES = "retrieval/get_person_cues"
    GET_SCOPE_SIZE = "retrieval/get_scope_size"
