"""MiniLM on ONNX Runtime: exported locally from the packaged weights, it gives the torch
path's vectors (to float32 rounding), single or batched, and loads the export once."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from hippograph.embeddings import EmbeddingProvider, OnnxMiniLMEmbeddings, SentenceTransformerEmbeddings

pytestmark = pytest.mark.integration

TEXTS = [
    "",
    "a",
    "When did Caroline go to the LGBTQ support group?",
    "Ünïcödé façade naïve — 東京 🎉",
    "word " * 600,  # past the model's 256 tokens: truncated the same way
]


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def onnx_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx")


@pytest.fixture(scope="module")
def pair(onnx_dir: Path) -> Iterator[tuple[SentenceTransformerEmbeddings, OnnxMiniLMEmbeddings]]:
    torch_e, onnx_e = SentenceTransformerEmbeddings(cache_size=0), OnnxMiniLMEmbeddings(cache_dir=onnx_dir)
    yield torch_e, onnx_e
    torch_e.close()
    onnx_e.close()


def test_not_loaded_at_construction(onnx_dir: Path) -> None:
    provider = OnnxMiniLMEmbeddings(cache_dir=onnx_dir)
    assert provider._model is None and provider.dimensions == 384
    assert isinstance(provider, EmbeddingProvider)


async def test_same_vectors_as_torch(pair: tuple[SentenceTransformerEmbeddings, OnnxMiniLMEmbeddings]) -> None:
    torch_e, onnx_e = pair
    expected = await torch_e.embed_batch(TEXTS)
    batched = await onnx_e.embed_batch(TEXTS)
    singles = [await onnx_e.embed(t) for t in TEXTS]
    for want, got, one in zip(expected, batched, singles, strict=True):
        assert len(got) == 384
        assert math.sqrt(sum(x * x for x in got)) == pytest.approx(1.0, abs=1e-5)
        assert _cos(want, got) > 0.99999
        assert _cos(one, got) > 0.99999


async def test_the_export_is_made_once(
    pair: tuple[SentenceTransformerEmbeddings, OnnxMiniLMEmbeddings], onnx_dir: Path
) -> None:
    _, onnx_e = pair
    await onnx_e.embed("warm")
    [graph] = list(onnx_dir.glob("minilm-*.onnx"))
    stamp = graph.stat().st_mtime_ns
    again = OnnxMiniLMEmbeddings(cache_dir=onnx_dir)
    assert _cos(await again.embed("the same words"), await onnx_e.embed("the same words")) > 0.999999
    assert [p.name for p in onnx_dir.iterdir()] == [graph.name]
    assert graph.stat().st_mtime_ns == stamp
    again.close()


def test_prepare_exports_once_writing_nothing_to_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """torch's tracer warnings and transformers' progress bar go to logging, and transformers'
    own progress-bar switch is as it was afterwards."""
    from transformers.utils import logging as hf_logging

    bar_before = hf_logging.is_progress_bar_enabled()
    provider = OnnxMiniLMEmbeddings(cache_dir=tmp_path)
    assert not provider.prepared
    with caplog.at_level(logging.DEBUG, logger="hippograph.embeddings"):
        path = provider.prepare()
    assert provider.prepared and path == provider.onnx_path and path.parent == tmp_path
    assert capfd.readouterr() == ("", "")
    logged = [r.getMessage() for r in caplog.records]
    assert any("TracerWarning" in m for m in logged), logged  # kept in the log, not dropped
    assert hf_logging.is_progress_bar_enabled() == bar_before
    assert provider.prepare() == path and [p.name for p in tmp_path.iterdir()] == [path.name]
    provider.close()
