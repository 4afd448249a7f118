"""Naming an embedder in one string, for settings and the command line.

=============================  ===============================================================
``minilm`` (the default)       all-MiniLM-L6-v2, 384-d, on ONNX Runtime (torch without it)
``st:PATH``                    any sentence-transformers model in the folder ``PATH``
``openai:MODEL``               ``MODEL`` from an OpenAI-compatible ``/embeddings`` endpoint at
``openai:MODEL@BASE_URL``      ``BASE_URL`` (default ``https://api.openai.com/v1``); the key
                               from ``HIPPOGRAPH_EMBEDDER_API_KEY`` or ``OPENAI_API_KEY``
``hashing:N``                  feature hashing, ``N``-d: fast tests only, no semantics
=============================  ===============================================================
"""

from __future__ import annotations

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import ConfigurationError

__all__ = ["DEFAULT_SPEC", "OPENAI_BASE_URL", "embedder_from_spec"]

DEFAULT_SPEC = "minilm"
OPENAI_BASE_URL = "https://api.openai.com/v1"


def embedder_from_spec(spec: str | None, *, api_key: str | None = None) -> EmbeddingProvider:
    """The embedder ``spec`` names (see the module's table); None or empty: the default.

    Raises:
        ConfigurationError: An unknown or malformed spec.
    """
    spec = (spec or DEFAULT_SPEC).strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind in ("minilm", "default") and not rest:
        from hippograph.embeddings import default_embedder

        return default_embedder()
    if kind in ("st", "sentence-transformers") and rest:
        from hippograph.embeddings.sentence_transformer import SentenceTransformerEmbeddings

        return SentenceTransformerEmbeddings(rest)
    if kind == "openai" and rest:
        from hippograph.embeddings.http import HttpEmbeddings

        model, _, base_url = rest.partition("@")
        return HttpEmbeddings(base_url or OPENAI_BASE_URL, model, api_key=api_key)
    if kind == "hashing":
        from hippograph.embeddings.hashing import HashingEmbeddings

        try:
            dims = int(rest) if rest else 384
        except ValueError:
            dims = 0
        if dims < 1:
            raise ConfigurationError(f"hashing:N needs a positive size, not {rest!r:.20}")
        return HashingEmbeddings(dims, model_id=f"hashing-{dims}")
    raise ConfigurationError(
        f"unknown embedder {spec!r:.80}: use minilm, st:PATH, openai:MODEL[@BASE_URL] or hashing:N"
    )
