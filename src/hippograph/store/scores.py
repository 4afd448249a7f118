"""The one place where Neo4j's vector scores and cosines convert.

Neo4j's cosine vector index (and ``vector.similarity.cosine``) reports ``(1 + cos) / 2`` in
[0, 1]; hippograph reasons in cosines in [-1, 1].
"""

from __future__ import annotations

__all__ = ["cosine_from_index", "index_from_cosine"]


def cosine_from_index(score: float) -> float:
    """The cosine behind a Neo4j vector score: ``2 × score − 1``."""
    return 2.0 * score - 1.0


def index_from_cosine(cosine: float) -> float:
    """The Neo4j vector score of a cosine: ``(1 + cos) / 2``."""
    return (1.0 + cosine) / 2.0
