"""A local Neo4j server as a managed process: the embedded launcher, its Java runtime, status."""

from hippograph.dbms.local_server import BrowserSetup, LocalNeo4j, ServerStatus

__all__ = ["BrowserSetup", "LocalNeo4j", "ServerStatus"]
