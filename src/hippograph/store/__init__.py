"""Neo4j underneath: connection, transactions, query catalog, schema, graph store."""

from hippograph.store.catalog import TransactionKind
from hippograph.store.causal import causal_scope
from hippograph.store.connection import Neo4jConnection, connected
from hippograph.store.filters import NodeFilter
from hippograph.store.graph_store import GraphStore, VectorHit
from hippograph.store.schema import SCHEMA_VERSION, migrate, schema_version
from hippograph.store.server_capabilities import ServerCapabilities
from hippograph.store.transaction import ReadTransaction, Row, WriteCounts, WriteTransaction

__all__ = [
    "SCHEMA_VERSION",
    "GraphStore",
    "Neo4jConnection",
    "NodeFilter",
    "ReadTransaction",
    "Row",
    "ServerCapabilities",
    "TransactionKind",
    "VectorHit",
    "WriteCounts",
    "WriteTransaction",
    "causal_scope",
    "connected",
    "migrate",
    "schema_version",
]
