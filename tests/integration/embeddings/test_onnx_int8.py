"""MiniLM's int8 graph: quantized once beside the float export, close to the float vectors,
used for batches only with ``int8="bulk"`` (queries keep the float graph) and for everything
with ``int8="always"``; batches sorted by length come back in the caller's order."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from hippograph.embeddings import OnnxMiniLMEmbeddings

pytestmark = pytest.mark.integration

TEXTS = [
    "Caroline on 8 May 2023: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: nice!",
    "Melanie on 9 May 2023: We went camping near the lake with the kids, by the old pine forest, "
    "and roasted marshmallows until late; the kids still talk about the owl we heard.",
    "Caroline: What did you paint last week?",
    "word " * 300,
]


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def onnx_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-int8")


@pytest.fixture(scope="module")
def providers(onnx_dir: Path) -> Iterator[dict[str, OnnxMiniLMEmbeddings]]:
    made = {
        mode: OnnxMiniLMEmbeddings(cache_dir=onnx_dir, cache_size=0, int8=mode) for mode in ("never", "bulk", "always")
    }  # type: ignore[arg-type]
    yield made
    for provider in made.values():
        provider.close()


async def test_bulk_batches_are_int8_and_queries_stay_float(providers: dict[str, OnnxMiniLMEmbeddings]) -> None:
    float_, bulk = providers["never"], providers["bulk"]
    want = await float_.embed_batch(TEXTS)
    got = await bulk.embed_batch(TEXTS)
    cosines = [_cos(w, g) for w, g in zip(want, got, strict=True)]
    assert all(c > 0.97 for c in cosines), cosines  # the same text, each in its caller's place
    assert min(cosines) < 0.9999  # and really the int8 graph
    for text in TEXTS[:3]:
        assert await bulk.embed(text) == await float_.embed(text)
    assert await bulk.embed_batch([TEXTS[0]]) == await float_.embed_batch([TEXTS[0]])  # one text: a query


async def test_always_is_int8_for_queries_too(providers: dict[str, OnnxMiniLMEmbeddings]) -> None:
    float_, always, bulk = providers["never"], providers["always"], providers["bulk"]
    one = await always.embed(TEXTS[0])
    assert 0.97 < _cos(one, await float_.embed(TEXTS[0])) < 0.9999
    # int8 activations are scaled per forward pass, so a text's vector moves a little with its batch
    assert _cos(one, (await bulk.embed_batch(TEXTS))[0]) > 0.97


def test_quantized_once_beside_the_float_export(
    providers: dict[str, OnnxMiniLMEmbeddings], onnx_dir: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bulk = providers["bulk"]
    bulk.encode_bulk_sync(["warm", "up"])
    capfd.readouterr()
    names = sorted(p.name for p in onnx_dir.iterdir())
    assert names == sorted([bulk.onnx_path.name, bulk.onnx_path.stem + "-int8.onnx"])
    int8 = onnx_dir / (bulk.onnx_path.stem + "-int8.onnx")
    stamp = int8.stat().st_mtime_ns
    again = OnnxMiniLMEmbeddings(cache_dir=onnx_dir, int8="bulk")
    assert again.prepared and again.prepare() == bulk.onnx_path
    assert sorted(p.name for p in onnx_dir.iterdir()) == names
    assert int8.stat().st_mtime_ns == stamp
    assert capfd.readouterr() == ("", "")
    again.close()


async def test_queries_alone_never_load_the_int8_graph(
    providers: dict[str, OnnxMiniLMEmbeddings], tmp_path: Path
) -> None:
    """A process that only recalls (``hippograph recall``) loads one graph, not two."""
    exported = providers["never"].prepare()
    shutil.copy(exported, tmp_path / exported.name)
    bulk = OnnxMiniLMEmbeddings(cache_dir=tmp_path, int8="bulk")
    try:
        assert await bulk.embed(TEXTS[0]) == await providers["never"].embed(TEXTS[0])
        assert await bulk.embed_batch([TEXTS[1]]) == await providers["never"].embed_batch([TEXTS[1]])
        assert sorted(p.name for p in tmp_path.iterdir()) == [exported.name]  # never quantized, never loaded
        batch = await bulk.embed_batch(TEXTS[:2])
        assert (tmp_path / (exported.stem + "-int8.onnx")).is_file()  # the first batch brings it in
        assert batch == await providers["bulk"].embed_batch(TEXTS[:2])
    finally:
        bulk.close()


def test_an_unknown_int8_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="int8 must be"):
        OnnxMiniLMEmbeddings(int8="sometimes")  # type: ignore[arg-type]
