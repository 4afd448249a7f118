"""Feature-hashing bag-of-words embeddings — for fast unit tests only.

Not for quality: there is no semantics here, only shared words. Deterministic across
processes (it uses blake2b, not Python's salted ``hash``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbeddings:
    """Signed feature hashing of lower-cased word tokens, L2-normalised.

    Args:
        dimensions: Vector length (default 384, the same as MiniLM so it can stand in).
        model_id: The model id the database records for these vectors; None (the default): a
            stand-in, which the database checks by its dimensions only.
    """

    def __init__(self, dimensions: int = 384, *, model_id: str | None = None) -> None:
        if dimensions < 1:
            raise ValueError("dimensions must be positive")
        self._dimensions = dimensions
        self.model_id = model_id

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self._dimensions
        for token in _TOKEN.findall(text.lower()):
            digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            vec[(value >> 1) % self._dimensions] += sign
        norm = math.sqrt(sum(x * x for x in vec))
        if norm == 0.0:
            return vec
        return [x / norm for x in vec]

    async def embed(self, text: str) -> list[float]:
        return self._vector(text)

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]
