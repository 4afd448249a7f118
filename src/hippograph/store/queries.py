"""The store's queries: the schema (``cypher/schema``) and memories, scopes, edges and vectors
(``cypher/memory``). A ``_LTS`` member is the Neo4j 5.26 form of the statement it is named after
(:class:`~hippograph.store.server_capabilities.ServerCapabilities`)."""

from __future__ import annotations

from enum import auto, nonmember

from hippograph.store.catalog import CypherQuery

__all__ = ["MemoryQuery", "SchemaQuery"]


class SchemaQuery(CypherQuery):
    """Constraints, indexes and the schema version (``cypher/schema``)."""

    folder = nonmember("schema")

    CREATE_CONSTRAINT_MEMORY_ID = auto()
    CREATE_CONSTRAINT_SCOPE_KEY = auto()
    CREATE_CONSTRAINT_SCHEMA_ID = auto()
    CREATE_CONSTRAINT_FACT_LOCK_KEY = auto()
    CREATE_CONSTRAINT_ERASURE_KEY = auto()
    CREATE_CONSTRAINT_CUE_KEY = auto()
    CREATE_INDEX_MEMORY_SCOPE_KEY = auto()
    CREATE_INDEX_MEMORY_SCOPE_LAYER = auto()
    CREATE_INDEX_MEMORY_UPDATED_AT = auto()
    CREATE_INDEX_MEMORY_LABEL = auto()
    CREATE_INDEX_MEMORY_SESSION_ID = auto()
    CREATE_INDEX_MEMORY_SCOPE_LABEL = auto()
    CREATE_INDEX_PENDING_LINK_SCOPE = auto()
    CREATE_INDEX_CONSOLIDATION_LEASE_SCOPE = auto()
    CREATE_INDEX_AUDIT_ENTRY_SCOPE = auto()
    CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN = auto()
    CREATE_CONSTRAINT_KEY_ID = auto()
    CREATE_INDEX_KEY_SCOPE_KEY = auto()
    CREATE_FULLTEXT_INDEX_KEY_TEXT = auto()
    CREATE_VECTOR_INDEX_KEY_EMBEDDING_CHAIN = auto()
    CREATE_VECTOR_INDEX_MEMORY_EMBEDDING = auto()
    CREATE_FULLTEXT_INDEX_MEMORY_TEXT = auto()
    DROP_INDEX_MEMORY_CREATED_AT = auto()
    DROP_INDEX_MEMORY_OCCURRED_AT = auto()
    DROP_INDEX_MEMORY_LAYER = auto()
    DROP_INDEX_MEMORY_EMBEDDING = auto()
    DROP_INDEX_CUE_SCOPE_KIND_KEY = auto()
    DROP_INDEX_MEMORY_EMBEDDING_SCOPED = auto()
    DROP_INDEX_KEY_EMBEDDING_SCOPED = auto()
    UPDATE_MEMORY_SCOPE_BOUNDS = auto()
    UPDATE_KEY_SCOPE_BOUNDS = auto()
    MERGE_DUPLICATE_CUES = auto()
    AWAIT_INDEXES = auto()
    GET_SCHEMA_VERSION = auto()
    UPSERT_SCHEMA_VERSION = auto()
    GET_SERVER_VERSION = auto()
    GET_INDEXES = auto()
    GET_CONSTRAINTS = auto()
    # the embedder of the vectors, and re-embedding (hippograph.store.vectors)
    GET_EMBEDDING_RECORD = auto()
    UPSERT_EMBEDDING_RECORD = auto()
    UPDATE_REEMBED_STATE = auto()
    GET_VECTOR_INDEXES = auto()
    DROP_INDEX_MEMORY_EMBEDDING_CHAIN = auto()
    GET_REEMBED_BATCH = auto()
    GET_REEMBED_STRAGGLERS = auto()
    UPDATE_NEXT_VECTORS = auto()
    UPDATE_REEMBEDDED_VECTORS = auto()
    GET_REEMBED_TOTAL = auto()
    UPDATE_COPY_NEXT_VECTORS = auto()
    DELETE_NEXT_VECTORS = auto()


class MemoryQuery(CypherQuery):
    """Memories, scopes, edges and vectors (``cypher/memory``)."""

    folder = nonmember("memory")

    # nodes, scopes
    UPSERT_SCOPES = auto()
    UPSERT_NODES = auto()
    UPDATE_IMPORTED_EDGE_LISTS = auto()
    GET_NODE = auto()
    GET_NODES = auto()
    UPDATE_NODE = auto()
    DELETE_NODE = auto()
    SEARCH_NODES = auto()
    SEARCH_SUBTREE_NODES = auto()
    SEARCH_SCOPE_LAYER = auto()
    SEARCH_PERSONA = auto()
    SEARCH_TURN_READS = auto()
    UPSERT_ERASURE = auto()
    UPSERT_FACT_LOCK = auto()
    DELETE_ERASED_STAMPS = auto()
    UPDATE_ERASED_PROVENANCE = auto()
    DELETE_ERASED_BOOKKEEPING = auto()
    DELETE_SUBTREE_BATCH = auto()
    DELETE_ERASED_SCOPES = auto()
    UPDATE_SUPERSESSION = auto()
    UPDATE_RETRACTION = auto()
    UPDATE_VALIDITY = auto()
    GET_CURRENT_FACT = auto()
    GET_OWNED_IDS_BY_PREFIX = auto()
    GET_SESSION_TAILS = auto()
    GET_COUNT = auto()
    SEARCH_EVENTS = auto()
    DELETE_WORKING_OVERFLOW = auto()
    DELETE_SCOPE_LAYER = auto()
    UPSERT_RESEMBLANCE_LINKS = auto()
    # edges
    UPSERT_EDGES = auto()
    DELETE_EDGE = auto()
    GET_NEIGHBORS = auto()
    GET_FRONTIER = auto()
    SEARCH_EDGES = auto()
    # vectors
    UPSERT_VECTORS = auto()
    UPSERT_KEYS = auto()
    GET_KEY_COUNT = auto()
    DELETE_VECTORS = auto()
    GET_VECTOR_COUNT = auto()
    DELETE_SUBTREE_VECTORS = auto()
    SEARCH_VECTOR_INDEX = auto()
    SEARCH_VECTOR_SCOPED = auto()
    SEARCH_VECTOR_SCOPED_LTS = auto()
    GET_VISIBLE_COUNT_CAPPED = auto()
    SEARCH_VECTOR_EXACT = auto()
