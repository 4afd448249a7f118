"""Diversity across sessions in the final ranking (off by default).

A list question ("What activities does Melanie do?") is answered by turns spread over many
sessions, and one session that matches well fills the top of the ranking with its neighbours.
With ``RecallConfig.session_diversity`` = d > 0 the ranking is rebuilt greedily: the next item
is the one whose score × (1 − d) ** (items of its session already placed) is highest (ties:
the earlier place). Memories without a session are never discounted. The scores themselves
are left as they were; only the order moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.retrieval.types import RecallItem

__all__ = ["diversify"]


def diversify(items: Sequence[RecallItem], strength: float) -> list[RecallItem]:
    """``items`` (best first) reordered so that one session does not crowd out the others."""
    if strength <= 0 or len(items) < 3:
        return list(items)
    keep = 1.0 - strength
    left = list(items)
    placed: dict[str, int] = {}
    out: list[RecallItem] = []
    while left:
        best_j, best_v = 0, float("-inf")
        for j, item in enumerate(left):
            session = item.node.session_id
            v = item.score * keep ** placed.get(session, 0) if session else item.score
            if v > best_v:
                best_j, best_v = j, v
        item = left.pop(best_j)
        if item.node.session_id:
            placed[item.node.session_id] = placed.get(item.node.session_id, 0) + 1
        out.append(item)
    return out
