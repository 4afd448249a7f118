"""Embedding providers without loading a model: the protocol, the hashing provider, construction
and its checks. The real MiniLM model is exercised in tests/integration/embeddings/."""

from __future__ import annotations

import math

import pytest

from hippograph.embeddings import (
    EmbeddingProvider,
    HashingEmbeddings,
    SentenceTransformerEmbeddings,
)

pytestmark = pytest.mark.unit


def _norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


def test_both_follow_the_protocol() -> None:
    assert isinstance(SentenceTransformerEmbeddings(), EmbeddingProvider)
    assert isinstance(HashingEmbeddings(), EmbeddingProvider)


def test_model_is_not_loaded_at_construction() -> None:
    provider = SentenceTransformerEmbeddings()
    assert provider._model is None
    assert provider.dimensions == 384


async def test_hashing_dims_normalised_deterministic() -> None:
    emb = HashingEmbeddings(dimensions=64)
    a = await emb.embed("Caroline went to the LGBTQ support group")
    assert len(a) == 64
    assert _norm(a) == pytest.approx(1.0)
    assert a == await emb.embed("Caroline went to the LGBTQ support group")
    assert await emb.embed_batch(["x y", "Caroline went to the LGBTQ support group"]) == [
        await emb.embed("x y"),
        a,
    ]
    assert _norm(await emb.embed("")) == 0.0


def test_bad_arguments_rejected() -> None:
    with pytest.raises(ValueError):
        SentenceTransformerEmbeddings(torch_threads=0)
    with pytest.raises(ValueError):
        HashingEmbeddings(dimensions=0)
