"""Optional dependencies, each behind an extra. Importing one that is not installed raises a
:class:`~hippograph.errors.MissingExtraError` (a ``ConfigurationError``) that names the
``pip install`` to run::

    with requires_extra("embeddings"):
        from sentence_transformers import SentenceTransformer

Extras: ``embeddings`` (sentence-transformers, torch, the MiniLM package), ``embeddings-http``
(httpx, for an embedding endpoint), ``anthropic``,
``api`` (fastapi, strawberry-graphql, uvicorn), ``analysis`` (networkx, matplotlib),
``cli`` (typer, rich), ``mcp`` (the Model Context Protocol SDK: the MCP server and the agent's
MCP client), ``otel`` (the OpenTelemetry SDK); ``all`` is the first five and ``mcp``.
``langgraph`` (the LangGraph store) stands apart: ``all`` does not bring LangGraph.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hippograph.errors import MissingExtraError

EXTRAS = frozenset({"embeddings", "embeddings-http", "anthropic", "api", "analysis", "cli", "langgraph", "mcp", "otel"})


@contextmanager
def requires_extra(extra: str) -> Iterator[None]:
    """Turn a failed import of a third-party module inside the block into a
    :class:`MissingExtraError` naming ``extra``; anything else passes through unchanged."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {sorted(EXTRAS)}")
    try:
        yield
    except ImportError as exc:
        missing = exc.name or ""
        if not missing or missing.split(".")[0] == "hippograph" or isinstance(exc, MissingExtraError):
            raise
        raise MissingExtraError(missing, extra) from exc
