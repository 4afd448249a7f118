"""Getting a memory ready so its first recall and first agent turn cost what the hundredth does.

Cold, the first recall pays for three things the later ones do not: loading the embedding
model (and its first, slower run), the server planning and compiling the recall statement
(seconds after a Neo4j start, once per mix of parameter types and sizes), and the server's
just-in-time compiler meeting that code for the first time. :meth:`Memory.warm` pays for them
ahead: it loads the embedder and embeds a sentence while the server plans the recall
statement, then reads what an agent turn reads before its model (recall, the working memory,
the pending triggers and the persona, in :meth:`Memory.context`) a few times over a scope that
holds nothing, and recalls as often in the scope of the memory updated last: a statement that
reads rows runs (and so has the server compile) code an empty one never reaches, and reads
pages into the server's page cache. The plans it leaves in the server's cache serve every
scope: recall sends every parameter with one type and size bucket whatever its value
(:func:`~hippograph.retrieval.repository.recall_statement_params`).

It writes nothing: the warm-up scope is never created, a recall that finds nothing leaves no
bookkeeping behind, and the recalls in a real scope count no access (``track_access`` off).
"""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.scope import Scope

__all__ = ["WARM_QUERIES", "WARM_ROUNDS", "WARM_SCOPE", "WarmUp"]

WARM_SCOPE = Scope.root("org", "hippograph-warm-up").child("user", "warm-up")
"""The scope the warm-up reads: two levels, as a user's scope under an organisation usually is
(the visible-keys list then falls in the same size bucket), and never written."""

WARM_QUERIES = (
    "What did Ada tell me about the trip to Lisbon last May?",
    "Remind me what we planned for the garden this weekend.",
    "Who recommended the book about sailing, and when?",
)
"""Questions shaped like a user's (a name, a place, a time): each warm-up round asks the next."""
WARM_ROUNDS = 3
"""Rounds of a turn's reads (and a recall in the scope written last) after the plans."""


@dataclass(frozen=True)
class WarmUp:
    """What :meth:`Memory.warm <hippograph.memory.Memory.warm>` took, in milliseconds."""

    embedder_ms: float
    """Loading the embedding model and embedding the first sentences."""
    plans_ms: float
    """The server planning and compiling the recall statement (beside the embedder)."""
    reads_ms: float
    """The turn's reads, ``rounds`` times, after both."""
    total_ms: float
