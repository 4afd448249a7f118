"""Length-bucketed batches for a transformer's forward passes.

A batch is padded to its longest text, so a batch that mixes a 10-token turn with a 200-token
one pays 200 tokens for each. :func:`length_batches` sorts the texts by token length within
windows of the stream (so a long stream is not held back until its end) and cuts batches that
stay under a token budget (texts × padded length): a batch costs about what its tokens cost,
short texts go many to a batch and long ones few. :func:`pad_batch` pads one batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

DEFAULT_MAX_BATCH = 64
"""At most this many texts per forward pass."""
DEFAULT_MAX_TOKENS = 2048
"""At most this many padded tokens (texts × longest) per forward pass."""
DEFAULT_WINDOW = 1024
"""Texts sorted together: a larger window groups lengths better and holds more at once."""


def length_batches(
    lengths: Sequence[int],
    *,
    max_batch: int = DEFAULT_MAX_BATCH,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    window: int = DEFAULT_WINDOW,
) -> list[list[int]]:
    """The texts' indices in batches: each window of ``window`` texts sorted by length
    (stably), then cut wherever adding the next text would exceed ``max_batch`` texts or
    ``max_tokens`` padded tokens. A text longer than ``max_tokens`` goes alone. Every index
    appears exactly once.

    Raises:
        ValueError: A bound below 1.
    """
    if max_batch < 1 or max_tokens < 1 or window < 1:
        raise ValueError("max_batch, max_tokens and window must be at least 1")
    batches: list[list[int]] = []
    for start in range(0, len(lengths), window):
        order = sorted(range(start, min(start + window, len(lengths))), key=lambda i: lengths[i])
        batch: list[int] = []
        longest = 0
        for i in order:
            widest = max(longest, lengths[i])
            if batch and (len(batch) >= max_batch or (len(batch) + 1) * widest > max_tokens):
                batches.append(batch)
                batch, widest = [], lengths[i]
            batch.append(i)
            longest = widest
        if batch:
            batches.append(batch)
    return batches


def pad_batch(ids: Sequence[Sequence[int]], pad_id: int = 0) -> tuple[Any, Any]:
    """Token ids of one batch padded to its longest, with the attention mask (int64 arrays)."""
    import numpy as np

    width = max((len(row) for row in ids), default=0)
    tokens = np.full((len(ids), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for r, row in enumerate(ids):
        tokens[r, : len(row)] = row
        mask[r, : len(row)] = 1
    return tokens, mask
