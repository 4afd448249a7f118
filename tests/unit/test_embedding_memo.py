"""A turn embeds its message once: inside :func:`embedding_memo` concurrent and later calls for
the same embedder and text share one embedding; outside it, or for another text or embedder,
each call embeds; a failure is not kept."""

from __future__ import annotations

import asyncio

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.embeddings.memo import embed_once, embedding_memo


class Counting(HashingEmbeddings):
    def __init__(self, fail_first: bool = False) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.fail_first = fail_first

    async def embed(self, text: str) -> list[float]:
        self.texts.append(text)
        await asyncio.sleep(0.01)
        if self.fail_first and len(self.texts) == 1:
            raise RuntimeError("embedder down")
        return await super().embed(text)


async def test_one_embedding_per_text_inside_a_memo() -> None:
    embedder, other = Counting(), Counting()
    with embedding_memo():
        a, b = await asyncio.gather(embed_once(embedder, "hello"), embed_once(embedder, "hello"))
        c = await asyncio.create_task(embed_once(embedder, "hello"))  # a task started in the block
        await embed_once(embedder, "other text")
        await embed_once(other, "hello")
    assert a == b == c == await HashingEmbeddings().embed("hello")
    assert embedder.texts == ["hello", "other text"] and other.texts == ["hello"]
    await embed_once(embedder, "hello")
    await embed_once(embedder, "hello")
    assert embedder.texts.count("hello") == 3  # outside a memo every call embeds


async def test_a_failed_embedding_is_not_kept() -> None:
    embedder = Counting(fail_first=True)
    with embedding_memo():
        with pytest.raises(RuntimeError, match="embedder down"):
            await embed_once(embedder, "hello")
        assert await embed_once(embedder, "hello") == await HashingEmbeddings().embed("hello")
    assert embedder.texts == ["hello", "hello"]
