"""Neo4j underneath: connection, transactions, query catalog, schema, graph store."""

from hippograph.store.connection import Neo4jConnection, connected
from hippograph.store.filters import NodeFilter
from hippograph.store.graph_store import GraphStore, VectorHit
from hippograph.store.schema import SCHEMA_VERSION, migrate, schema_version

__all__ = [
    "SCHEMA_VERSION",
    "GraphStore",
    "Neo4jConnection",
    "NodeFilter",
    "VectorHit",
    "connected",
    "migrate",
    "schema_version",
]
