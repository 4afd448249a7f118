"""Warming a Neo4j server just started, so that the first client's first recall is as fast as
later ones: ``hippograph neo4j start`` runs this once the server answers.

The server's plan cache and its compiled code outlive the client that filled them: one
:meth:`Memory.warm <hippograph.memory.Memory.warm>` over a short-lived connection leaves the
recall and agent-turn statements planned and compiled for every process that connects next (a
CLI recall, a script, the API). The embedder plays no part in the plans (only the vector's length
does, which the default embedders share), so the light hashing embedder stands in for it here.
"""

from __future__ import annotations

from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.memory.warm import WarmUp

__all__ = ["warm_server"]


async def warm_server(uri: str, *, password: str | None, user: str = "neo4j", database: str = "neo4j") -> WarmUp:
    """Apply the schema (idempotent) and warm the server at ``uri`` (see :mod:`hippograph.memory.warm`).

    Raises:
        StoreError: The database failed.
    """
    memory = await Memory.connect(
        uri, user=user, password=password, database=database, embedder=HashingEmbeddings(), warm=True
    )
    warmed = await memory.warm()  # a second round, now the plans are made: the code they run is compiled
    await memory.close()
    return warmed
