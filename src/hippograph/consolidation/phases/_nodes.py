"""Building the memories phases create, through the store's own mapping."""

from __future__ import annotations

import hashlib
from typing import Any

from hippograph.models import MemoryNode
from hippograph.scope import Scope
from hippograph.store.mapping import node_to_props


def derived_id(prefix: str, *parts: str) -> str:
    """A stable id for a memory derived from ``parts``: a rerun finds it instead of adding one."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return f"{prefix}-{digest}"


def node_row(node: MemoryNode, **extra: Any) -> dict[str, Any]:
    """``{id, scope_key, props, **extra}`` for the upsert queries of the phases."""
    props = node_to_props(node, Scope.parse(node.scope_key))
    return {"id": node.id, "scope_key": node.scope_key, "props": props, **extra}
