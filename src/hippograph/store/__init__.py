"""Neo4j underneath: connection, query catalog, schema, graph store, local server."""

from hippograph.store.connection import Neo4jConnection, connected
from hippograph.store.filters import NodeFilter
from hippograph.store.graph_store import GraphStore, VectorHit
from hippograph.store.local_server import LocalNeo4j, ServerStatus
from hippograph.store.schema import SCHEMA_VERSION, migrate, schema_version

__all__ = [
    "SCHEMA_VERSION",
    "GraphStore",
    "LocalNeo4j",
    "Neo4jConnection",
    "NodeFilter",
    "ServerStatus",
    "VectorHit",
    "connected",
    "migrate",
    "schema_version",
]
