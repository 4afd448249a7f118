"""The MiniLM provider with the real model (torch): shape, normalisation, batching, caching, and
that meaning shows in distances. No server; integration for the model it loads."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from hippograph.embeddings import SentenceTransformerEmbeddings

pytestmark = pytest.mark.integration


def _norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def minilm() -> Iterator[SentenceTransformerEmbeddings]:
    provider = SentenceTransformerEmbeddings()
    yield provider
    provider.close()


async def test_minilm_dims_and_normalisation(minilm: SentenceTransformerEmbeddings) -> None:
    v = await minilm.embed("What did Melanie paint recently?")
    assert len(v) == 384
    assert _norm(v) == pytest.approx(1.0, abs=1e-5)


async def test_minilm_batch_equals_single(minilm: SentenceTransformerEmbeddings) -> None:
    texts = ["I adopted a puppy last week.", "The pottery class was fun.", "Hi!"]
    batch = await minilm.embed_batch(texts)
    for text, row in zip(texts, batch, strict=True):
        single = await minilm.embed(text)
        assert single == pytest.approx(row, abs=1e-5)
    assert await minilm.embed_batch([]) == []


async def test_minilm_query_cache_hit(minilm: SentenceTransformerEmbeddings) -> None:
    hits = minilm.cache_hits
    first = await minilm.embed("a query seen twice")
    second = await minilm.embed("a query seen twice")
    assert first is second
    assert minilm.cache_hits == hits + 1


async def test_minilm_cache_is_bounded() -> None:
    provider = SentenceTransformerEmbeddings(cache_size=2)
    try:
        for text in ["one", "two", "three"]:
            await provider.embed(text)
        assert list(provider._cache) == ["two", "three"]
    finally:
        provider.close()


async def test_minilm_similar_closer_than_unrelated(
    minilm: SentenceTransformerEmbeddings,
) -> None:
    a, b, c = await minilm.embed_batch(
        [
            "My dog loves running on the beach.",
            "Our puppy enjoys playing by the sea.",
            "The quarterly tax report is due on Friday.",
        ]
    )
    assert _cos(a, b) > _cos(a, c) + 0.2
