"""One embedding per text per turn: a turn's parts (recall, the triggers by meaning) embed the
same message, concurrently; inside :func:`embedding_memo` the first asks the embedder and the
others wait for its answer.

Outside a memo :func:`embed_once` is the embedder's own ``embed``. The memo holds the texts of
one turn only (it ends with the ``with`` block); a failed embedding is not kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from hippograph.embeddings.base import EmbeddingProvider

__all__ = ["embed_once", "embedding_memo"]

_MEMO: ContextVar[dict[tuple[int, str], asyncio.Future[list[float]]] | None] = ContextVar(
    "hippograph_embedding_memo", default=None
)


@contextmanager
def embedding_memo() -> Iterator[None]:
    """Within the block (and the tasks started in it), :func:`embed_once` embeds a text once."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


async def embed_once(embedder: EmbeddingProvider, text: str) -> list[float]:
    """``embedder.embed(text)``, shared with every other call for the same embedder and text in
    the current :func:`embedding_memo`."""
    memo = _MEMO.get()
    if memo is None:
        return await embedder.embed(text)
    key = (id(embedder), text)
    pending = memo.get(key)
    if pending is None:
        pending = memo[key] = asyncio.ensure_future(embedder.embed(text))
    try:
        return list(await asyncio.shield(pending))
    except BaseException:
        if pending.done() and memo.get(key) is pending:
            del memo[key]
        raise
