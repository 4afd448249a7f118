"""Neo4j underneath: connection, transactions, query catalog, schema, graph store."""

from hippograph.store.capabilities import ServerCapabilities
from hippograph.store.causal import causal_scope
from hippograph.store.connection import Neo4jConnection, connected
from hippograph.store.filters import NodeFilter
from hippograph.store.graph_store import GraphStore, VectorHit
from hippograph.store.schema import SCHEMA_VERSION, migrate, schema_version
from hippograph.store.transaction import Row, Transaction, WriteCounts

__all__ = [
    "SCHEMA_VERSION",
    "GraphStore",
    "Neo4jConnection",
    "NodeFilter",
    "Row",
    "ServerCapabilities",
    "Transaction",
    "VectorHit",
    "WriteCounts",
    "causal_scope",
    "connected",
    "migrate",
    "schema_version",
]
