"""Memory ops with credentials masked: every text field scrubbed, secret-looking property keys
dropped, the op validated again."""

from __future__ import annotations

from typing import Any

from hippograph.ops import MEMORY_OP_ADAPTER, MemoryOp
from hippograph.scrub import Scrubber

__all__ = ["scrub_op"]

_UNSCRUBBED_FIELDS = frozenset({"op", "id"})


def scrub_op(op: MemoryOp, scrubber: Scrubber | None = None) -> MemoryOp:
    """The op with credentials masked in every text field and secret-looking property keys
    dropped (by ``scrubber``; None: the default patterns).

    Raises:
        ValidationError: The scrubbed op is no longer valid (e.g. a field grew too long).
    """
    scrub = scrubber or Scrubber.default()
    data = op.model_dump(mode="json")
    clean = {key: value if key in _UNSCRUBBED_FIELDS else _scrub(scrub, key, value) for key, value in data.items()}
    return MEMORY_OP_ADAPTER.validate_python(clean)


def _scrub(scrub: Scrubber, key: str, value: Any) -> Any:
    if key == "properties" and isinstance(value, dict):
        return scrub.properties(value)
    if isinstance(value, str):
        return scrub.text(value)
    if isinstance(value, list):
        return [_scrub(scrub, key, v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(scrub, k, v) for k, v in value.items()}
    return value
