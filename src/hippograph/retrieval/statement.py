"""Recall's one statement, from its fragments (``cypher/retrieval/recall/``).

The fragments, in the order they run: the visible keys, the population, both channels over the
memories and over their keys, the vector channel's feedback (off by default), the key credit,
the named persons, the evidence, four hops of spreading over memory edges (one block, rendered
per hop), what they added up to, the association seeds, the associations through sessions and
cues, the ranking, and the one row returned. The one
statement (:func:`recall_statement`) is what every recall runs; the same fragments one by one
(:func:`recall_stages`) are its degrade path, each failing on its own
(:class:`~hippograph.store.fragments.Output` stand-ins).
"""

from __future__ import annotations

from hippograph.store.catalog import RenderedQuery
from hippograph.store.fragments import Stage, render_stages, render_statement

__all__ = ["FOLDER", "ORDER", "recall_stages", "recall_statement"]

FOLDER = "retrieval/recall"
ORDER = (
    "visible",
    "population",
    "vector",
    "key_vector",
    "vector_exact",
    "feedback",
    "fulltext",
    "key_fulltext",
    "key_fusion",
    "named",
    "evidence",
    "hop",
    "spread",
    "seeds",
    "associations",
    "ranking",
    "result",
)
"""The fragments of one recall, in the order they run."""


def recall_statement(*, lts: bool) -> RenderedQuery:
    """The recall statement for a Neo4j 2026.x server, or 5.26 (``lts``)."""
    return render_statement(FOLDER, ORDER, lts=lts)


def recall_stages(*, lts: bool) -> tuple[Stage, ...]:
    """The recall statement's fragments as statements of their own, in order (the degrade path)."""
    return render_stages(FOLDER, ORDER, lts=lts)
