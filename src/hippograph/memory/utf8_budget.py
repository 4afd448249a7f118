"""A recalled memory block within a UTF-8 byte budget: whole entries, best first, each cut
to a per-memory ceiling, associated ones under their header."""

from __future__ import annotations

from hippograph.models import Layer
from hippograph.retrieval.context import MemoryContext

__all__ = ["ASSOCIATED_HEADER", "cut_utf8", "fit_utf8"]

ASSOCIATED_HEADER = "Associated Context:"
ELLIPSIS = "…"


def fit_utf8(
    context: MemoryContext, associated: set[str], budget: int | None, *, item_budget: int | None = None
) -> tuple[str, list[str], list[str]]:
    """The context's entries, in order, as a block of at most ``budget`` UTF-8 bytes (None:
    no block ceiling), each entry cut to at most ``item_budget`` bytes (None: uncut).

    Entries are taken best first and one that does not fit is skipped (a shorter later one
    may still fit); associated entries go under the ``Associated Context:`` header, which
    is only written when one of them fits.

    Returns:
        The text, the ids it holds, and the ids left out.
    """
    lines: list[str] = []
    ids: list[str] = []
    dropped: list[str] = []
    used = 0
    header = False
    for entry in context.entries:
        is_associated = entry.layer is not Layer.WORKING and entry.id in associated
        entry_text = entry.text if item_budget is None else cut_utf8(entry.text, item_budget)
        size = len(entry_text.encode("utf-8"))
        cost = size + (1 if lines else 0)
        extra = 0
        if is_associated and not header:
            extra = len(ASSOCIATED_HEADER.encode("utf-8")) + (1 if lines else 0)
            cost = size + 1
        if budget is not None and used + extra + cost > budget:
            dropped.append(entry.id)
            continue
        if extra:
            lines.append(ASSOCIATED_HEADER)
            header = True
        lines.append(entry_text)
        ids.append(entry.id)
        used += extra + cost
    return "\n".join(lines), ids, dropped


def cut_utf8(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` UTF-8 bytes: cut at a character boundary and ended with
    ``…`` when it is longer."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = limit - len(ELLIPSIS.encode("utf-8"))
    if room <= 0:
        return data[:limit].decode("utf-8", errors="ignore")
    return data[:room].decode("utf-8", errors="ignore").rstrip() + ELLIPSIS
