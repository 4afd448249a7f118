"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint over HTTP (OpenAI's own, or
a local server that speaks the same wire format: vLLM, Ollama, LM Studio, text-embeddings-
inference …).

The request is ``POST {base_url}/embeddings`` with ``{"model", "input": [texts]}`` (and
``"dimensions"`` when asked for a shortened vector); the answer's ``data`` holds one
``{"embedding", "index"}`` per text. Texts go in batches; a failed request (a lost connection,
a timeout, 408, 409, 429 or 5xx) is tried again with exponential backoff, honouring
``Retry-After``. Vectors come back L2-normalised whatever the server sends.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hippograph._extras import requires_extra
from hippograph.errors import ConfigurationError, HippographError

if TYPE_CHECKING:
    import httpx

__all__ = ["EmbeddingServiceError", "HttpEmbeddings"]

_RETRIED = frozenset({408, 409, 429, 500, 502, 503, 504})


class EmbeddingServiceError(HippographError):
    """The embedding endpoint refused a request or kept failing."""


class HttpEmbeddings:
    """An embedding model behind an OpenAI-compatible ``/embeddings`` endpoint.

    Args:
        base_url: The API's root, the part before ``/embeddings`` (``https://api.openai.com/v1``,
            ``http://127.0.0.1:11434/v1`` …).
        model: The model to ask for; also the model id the database records.
        api_key: Sent as a bearer token; None: ``HIPPOGRAPH_EMBEDDER_API_KEY`` or
            ``OPENAI_API_KEY`` when set, else no ``Authorization`` header.
        dimensions: The vectors' size. None: learned from the first answer (:meth:`probe`,
            which :meth:`~hippograph.Memory.connect` awaits).
        request_dimensions: Send ``dimensions`` in each request (models that can shorten
            their vectors).
        batch_size: Texts per request.
        max_retries: Further attempts of a failed request.
        timeout: Seconds per request.
        cache_size: Capacity of the LRU cache of single-text (query) embeddings; 0 disables.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dimensions: int | None = None,
        request_dimensions: bool = False,
        batch_size: int = 64,
        max_retries: int = 4,
        timeout: float = 30.0,
        cache_size: int = 1024,
        backoff: float = 0.5,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(f"the embedding endpoint must be an http(s) URL, not {base_url!r:.80}")
        if not model:
            raise ConfigurationError("the embedding endpoint needs a model name")
        if batch_size < 1 or max_retries < 0 or cache_size < 0:
            raise ConfigurationError("batch_size must be positive, max_retries and cache_size non-negative")
        if request_dimensions and dimensions is None:
            raise ConfigurationError("request_dimensions needs dimensions")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.model_id = model
        key = api_key or os.environ.get("HIPPOGRAPH_EMBEDDER_API_KEY") or os.environ.get("OPENAI_API_KEY")
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._dimensions = dimensions
        self._request_dimensions = request_dimensions
        self._batch_size = batch_size
        self._max_retries = max_retries
        self._timeout = timeout
        self._backoff = backoff
        self._cache_size = cache_size
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._client: httpx.AsyncClient | None = None
        self.requests = 0
        """Requests sent (retries included)."""

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            raise ConfigurationError(
                f"the size of {self.model}'s vectors is not known yet: give dimensions=, or await probe() first"
            )
        return self._dimensions

    async def probe(self) -> int:
        """The vectors' size, asking the endpoint once when it was not given."""
        if self._dimensions is None:
            await self.embed_batch(["dimensions"])
        return self.dimensions

    async def embed(self, text: str) -> list[float]:
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        (vector,) = await self.embed_batch([text])
        if self._cache_size:
            self._cache[text] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            out.extend(await self._request(list(texts[start : start + self._batch_size])))
        return out

    async def aclose(self) -> None:
        """Close the HTTP client (it is opened again on the next request)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _request(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self._request_dimensions:
            body["dimensions"] = self._dimensions
        with requires_extra("embeddings-http"):
            import httpx
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self._timeout)
        url = f"{self.base_url}/embeddings"
        for attempt in range(self._max_retries + 1):
            last = attempt == self._max_retries
            self.requests += 1
            try:
                response = await self._client.post(url, json=body, headers=self._headers)
            except httpx.TransportError as exc:
                if last:
                    raise EmbeddingServiceError(f"{url}: {type(exc).__name__} after {attempt + 1} attempts") from exc
                await asyncio.sleep(self._backoff * 2**attempt)
                continue
            if response.status_code in _RETRIED and not last:
                await asyncio.sleep(_retry_after(response) or self._backoff * 2**attempt)
                continue
            if response.status_code != 200:
                raise EmbeddingServiceError(f"{url} answered {response.status_code}: {response.text[:200]}")
            return self._vectors(response, len(texts))
        raise AssertionError("unreachable")

    def _vectors(self, response: httpx.Response, n: int) -> list[list[float]]:
        try:
            data = response.json()["data"]
            rows = sorted(data, key=lambda d: int(d["index"]))
            vectors = [[float(x) for x in row["embedding"]] for row in rows]
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingServiceError(f"the embedding endpoint's answer is not understood ({exc!r:.100})") from None
        if len(vectors) != n or [int(r["index"]) for r in rows] != list(range(n)):
            raise EmbeddingServiceError(f"the embedding endpoint answered {len(vectors)} vectors for {n} texts")
        for vector in vectors:
            if self._dimensions is None:
                self._dimensions = len(vector)
            if len(vector) != self._dimensions:
                raise EmbeddingServiceError(f"{self.model} answered a {len(vector)}-d vector, not {self._dimensions}-d")
        return [_normalised(v) for v in vectors]


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(float(value), 30.0) if value is not None else None
    except ValueError:
        return None


def _normalised(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm > 0 else vector
