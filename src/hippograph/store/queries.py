"""The store's queries: nodes, scopes, edges, vectors, schema."""

from __future__ import annotations

from hippograph.store.catalog import CypherQuery


class StoreQuery(CypherQuery):
    """Queries of the graph store."""

    # schema
    CREATE_CONSTRAINT_MEMORY_ID = "schema/create_constraint_memory_id"
    CREATE_CONSTRAINT_SCOPE_KEY = "schema/create_constraint_scope_key"
    CREATE_CONSTRAINT_SCHEMA_ID = "schema/create_constraint_schema_id"
    CREATE_INDEX_MEMORY_SCOPE_KEY = "schema/create_index_memory_scope_key"
    CREATE_INDEX_MEMORY_SCOPE_LAYER = "schema/create_index_memory_scope_layer"
    CREATE_INDEX_MEMORY_LAYER = "schema/create_index_memory_layer"
    CREATE_INDEX_MEMORY_CREATED_AT = "schema/create_index_memory_created_at"
    CREATE_INDEX_MEMORY_UPDATED_AT = "schema/create_index_memory_updated_at"
    CREATE_INDEX_MEMORY_OCCURRED_AT = "schema/create_index_memory_occurred_at"
    CREATE_INDEX_MEMORY_LABEL = "schema/create_index_memory_label"
    CREATE_INDEX_MEMORY_SESSION_ID = "schema/create_index_memory_session_id"
    CREATE_INDEX_CUE_SCOPE_KIND_KEY = "schema/create_index_cue_scope_kind_key"
    CREATE_INDEX_PENDING_LINK_SCOPE = "schema/create_index_pending_link_scope"
    CREATE_INDEX_CONSOLIDATION_LEASE_SCOPE = "schema/create_index_consolidation_lease_scope"
    CREATE_INDEX_AUDIT_ENTRY_SCOPE = "schema/create_index_audit_entry_scope"
    CREATE_VECTOR_INDEX_MEMORY_EMBEDDING = "schema/create_vector_index_memory_embedding"
    CREATE_FULLTEXT_INDEX_MEMORY_TEXT = "schema/create_fulltext_index_memory_text"
    AWAIT_INDEXES = "schema/await_indexes"
    GET_SCHEMA_VERSION = "schema/get_schema_version"
    UPSERT_SCHEMA_VERSION = "schema/upsert_schema_version"
    # memory: nodes, scopes
    UPSERT_SCOPES = "memory/upsert_scopes"
    UPSERT_NODES = "memory/upsert_nodes"
    GET_NODE = "memory/get_node"
    GET_NODES = "memory/get_nodes"
    UPDATE_NODE = "memory/update_node"
    DELETE_NODE = "memory/delete_node"
    SEARCH_NODES = "memory/search_nodes"
    SEARCH_SUBTREE_NODES = "memory/search_subtree_nodes"
    DELETE_SUBTREE = "memory/delete_subtree"
    UPDATE_SUPERSESSION = "memory/update_supersession"
    UPDATE_RETRACTION = "memory/update_retraction"
    GET_CURRENT_FACT = "memory/get_current_fact"
    GET_SESSION_TAIL = "memory/get_session_tail"
    GET_COUNT = "memory/get_count"
    SEARCH_EVENTS = "memory/search_events"
    DELETE_WORKING_OVERFLOW = "memory/delete_working_overflow"
    DELETE_SCOPE_LAYER = "memory/delete_scope_layer"
    UPSERT_CUES = "memory/upsert_cues"
    # memory: edges
    UPSERT_EDGES = "memory/upsert_edges"
    DELETE_EDGE = "memory/delete_edge"
    GET_NEIGHBORS = "memory/get_neighbors"
    GET_FRONTIER = "memory/get_frontier"
    SEARCH_EDGES = "memory/search_edges"
    # memory: vectors
    UPSERT_VECTORS = "memory/upsert_vectors"
    DELETE_VECTORS = "memory/delete_vectors"
    GET_VECTOR_COUNT = "memory/get_vector_count"
    DELETE_SUBTREE_VECTORS = "memory/delete_subtree_vectors"
    SEARCH_VECTOR_INDEX = "retrieval/search_vector_index"
    SEARCH_VECTOR_EXACT = "retrieval/search_vector_exact"
