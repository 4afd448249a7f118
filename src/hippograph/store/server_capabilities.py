"""What the connected Neo4j can run, read once when the connection opens.

hippograph runs on Neo4j 2026.x and on the 5.26 LTS line. They differ in one thing the queries
use: 2026.01 brought Cypher 25's ``SEARCH`` clause, whose vector search filters by scope *inside*
the index (``memory_embedding_chain``, whose filter properties put a whole scope chain in one
range search, see :attr:`hippograph.scope.Scope.chain_lo`). 5.26 has only
``db.index.vector.queryNodes``, which returns the index's global top-k; there the vector index
(``memory_embedding``) carries no filter property, each search over-fetches from the whole index
and filters by the visible scope keys afterwards, and an exact scan answers when too few survive
(see :mod:`hippograph.store.vector_search`). Each statement that differs has a ``_lts`` file
beside it; :meth:`ServerCapabilities.pick` chooses between the two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar

from hippograph.errors import ConfigurationError
from hippograph.store.catalog import CypherQuery

__all__ = [
    "MIN_NEO4J_VERSION",
    "SEARCH_CLAUSE_SINCE",
    "ServerCapabilities",
    "parse_version",
]

MIN_NEO4J_VERSION = (5, 26)
"""The oldest Neo4j hippograph runs on: 5.26 LTS (scoped ``CALL (x) {…}`` subqueries, vector
and fulltext indexes, ``vector.similarity.cosine``)."""
SEARCH_CLAUSE_SINCE = (2026, 1)
"""The first Neo4j with Cypher 25's ``SEARCH`` clause and vector indexes with filter properties."""
VECTOR_INDEX = "memory_embedding_chain"
VECTOR_INDEX_LTS = "memory_embedding"

Q = TypeVar("Q")


def parse_version(version: str) -> tuple[int, int] | None:
    """``"5.26.31"`` → ``(5, 26)``, ``"2026.08.1"`` → ``(2026, 8)``; None when unparsable."""
    found = re.match(r"\s*(\d+)\.(\d+)", version)
    return (int(found.group(1)), int(found.group(2))) if found else None


@dataclass(frozen=True)
class ServerCapabilities:
    """The server's version and the query features chosen by it.

    A connection made without :meth:`~hippograph.store.connection.Neo4jConnection.connect`
    assumes a current server (the default here)."""

    version: str = "unknown"
    """The kernel's version as ``dbms.components()`` reports it (``"2026.08.1"``, ``"5.26.31"``)."""
    edition: str = "unknown"
    supports_search_clause: bool = True
    """Cypher 25 ``SEARCH`` with in-index filters (2026.01+); False on 5.26."""

    @classmethod
    def of(cls, version: str, edition: str = "unknown") -> ServerCapabilities:
        """The capabilities of a server reporting ``version``. A version that does not parse (a
        development build) is taken as current.

        Raises:
            ConfigurationError: The server is older than 5.26.
        """
        parsed = parse_version(version)
        if parsed is not None and parsed < MIN_NEO4J_VERSION:
            minimum = ".".join(map(str, MIN_NEO4J_VERSION))
            raise ConfigurationError(
                f"Neo4j {version} is too old: hippograph needs Neo4j {minimum} LTS or 2026.x "
                "(`hippograph neo4j start` runs 2026.x; HIPPOGRAPH_NEO4J_VERSION=5.26.31 runs the LTS)"
            )
        return cls(version, edition, supports_search_clause=parsed is None or parsed >= SEARCH_CLAUSE_SINCE)

    def can_run(self, query: CypherQuery) -> bool:
        """False for a Cypher 25 statement (a ``CYPHER 25`` line) on a server without it: the
        ones whose ``_lts`` form or :data:`~hippograph.store.schema.LTS_STEPS` stands in."""
        return self.supports_search_clause or "CYPHER 25" not in query.text.splitlines()

    def pick(self, search_clause: Q, lts: Q) -> Q:
        """``search_clause`` (the statement using ``SEARCH``) when the server has it, else ``lts``."""
        return search_clause if self.supports_search_clause else lts

    @property
    def vector_index(self) -> str:
        """The name of the memories' vector index on this server."""
        return self.pick(VECTOR_INDEX, VECTOR_INDEX_LTS)

    @property
    def vector_filtering(self) -> str:
        """How vector search keeps to the visible scopes here, in a sentence."""
        if self.supports_search_clause:
            return "inside the vector index (Cypher 25 SEARCH, one range filter over the scope chain)"
        return (
            "after the vector index (5.26: over-fetched global top-k, then the scope filter; "
            "an exact scan when too few survive)"
        )
