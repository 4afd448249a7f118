"""The protocol every embedding provider follows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns text into fixed-size, L2-normalised float vectors.

    Implementations must not block the event loop: ``embed`` and ``embed_batch`` are
    coroutines, and the heavy work runs elsewhere.

    An implementation may also have a ``model_id`` attribute (a string naming the model): the
    database records it with the dimensions and refuses another model's embedder
    (:func:`~hippograph.store.vectors.check_embedder`); one without it (or None) is checked by
    its dimensions only. One whose dimensions are known only from the model's first answer has
    an ``async probe()`` that :meth:`~hippograph.Memory.connect` awaits first.
    """

    @property
    def dimensions(self) -> int:
        """Length of every vector this provider returns."""
        ...

    async def embed(self, text: str) -> list[float]:
        """Embed one text (typically a query)."""
        ...

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed many texts (typically a write path), in input order."""
        ...
