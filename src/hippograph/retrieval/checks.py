"""Validation of recall requests: a clear error naming the field, before any query runs."""

from __future__ import annotations

from collections.abc import Sequence

from hippograph.errors import InvalidQueryError
from hippograph.models import Layer

MAX_QUERY_CHARS = 4000
DEFAULT_LAYERS = (Layer.SEMANTIC, Layer.EPISODIC, Layer.PROCEDURAL)


def check_text(text: str, field: str) -> None:
    """Refuse text that is not valid Unicode: a lone surrogate (``"\\ud800"``) cannot be
    encoded, tokenized or stored, so it is the caller's mistake, not a store fault."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidQueryError(field, f"is not valid Unicode (a lone surrogate at {exc.start})") from None


def check_request(query: str, layers: Sequence[Layer | str] | None, k: int) -> list[Layer]:
    """Return the layers to search; raise InvalidQueryError for anything unusable."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidQueryError("query", "must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidQueryError("query", f"longer than {MAX_QUERY_CHARS} characters")
    check_text(query, "query")
    if not 1 <= k <= 500:
        raise InvalidQueryError("top_k", "must be between 1 and 500")
    if layers is None:
        return list(DEFAULT_LAYERS)
    out: list[Layer] = []
    for i, layer in enumerate(layers):
        try:
            parsed = Layer(layer)
        except ValueError:
            raise InvalidQueryError(f"layers[{i}]", f"unknown layer {layer!r:.40}") from None
        if parsed is Layer.PROSPECTIVE:
            raise InvalidQueryError(f"layers[{i}]", "prospective triggers are read with get_pending, not recall")
        out.append(parsed)
    if not out:
        raise InvalidQueryError("layers", "name at least one layer")
    return out
