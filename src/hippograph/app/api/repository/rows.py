"""Typed rows of the API's reads: each record validated once, at the connection, into frozen
models whose fields are the library's own (memories, edges, audit entries). A memory or edge
map (``m {.*}``) keeps only the model's fields and decodes the properties stored as JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BeforeValidator, field_validator

from hippograph.audit import AuditEntry
from hippograph.models import Layer, MemoryEdge, MemoryNode
from hippograph.store.connection import Row

_NODE_FIELDS = frozenset(MemoryNode.model_fields)
_EDGE_FIELDS = frozenset(MemoryEdge.model_fields)
_AUDIT_FIELDS = frozenset(AuditEntry.model_fields)
_NODE_JSON_FIELDS = ("properties", "retraction")


def _decoded(props: dict[str, Any], fields: frozenset[str], json_fields: tuple[str, ...]) -> dict[str, Any]:
    data = {k: v for k, v in props.items() if k in fields}
    for key in json_fields:
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return data


def _node_map(value: Any) -> Any:
    return _decoded(value, _NODE_FIELDS, _NODE_JSON_FIELDS) if isinstance(value, dict) else value


def _edge_map(value: Any) -> Any:
    return _decoded(value, _EDGE_FIELDS, ()) if isinstance(value, dict) else value


def _audit_map(value: Any) -> Any:
    return _decoded(value, _AUDIT_FIELDS, ("detail",)) if isinstance(value, dict) else value


StoredNode = Annotated[MemoryNode, BeforeValidator(_node_map)]
"""A record's memory map as a :class:`MemoryNode`."""
StoredEdge = Annotated[MemoryEdge, BeforeValidator(_edge_map)]
"""A record's edge map (``r {.*, relationship, source, target}``) as a :class:`MemoryEdge`."""
StoredAudit = Annotated[AuditEntry, BeforeValidator(_audit_map)]
"""A record's audit map as an :class:`AuditEntry`."""


class Neighbour(Row):
    """A memory next to another one, the edge between them, and its direction."""

    node: StoredNode
    edge: StoredEdge
    outgoing: bool


class Subgraph(Row):
    """Memories and the edges between them."""

    nodes: list[StoredNode]
    edges: list[StoredEdge]


class ScopeRow(Row):
    """A scope node."""

    key: str
    kind: str
    id: str
    depth: int


class LayerCount(Row):
    """How many memories of one layer a scope holds, and how many of them are retracted or
    superseded."""

    layer: Layer
    total: int
    retracted: int
    superseded: int


class MemoryRow(Row):
    m: StoredNode


class EdgeRow(Row):
    r: StoredEdge


class CountRow(Row):
    total: int


class NeighboursRow(Row):
    id: str
    rows: list[Neighbour]


class ChainRow(Row):
    id: str
    chain: list[StoredNode]


class AuditRow(Row):
    id: str
    entries: list[StoredAudit]


class ScopeRecord(Row):
    scope: ScopeRow


class ScopeCountsRow(Row):
    key: str
    layers: list[LayerCount]

    @field_validator("layers", mode="before")
    @classmethod
    def _without_empty_scope(cls, value: Any) -> Any:
        # a scope with no memories comes back as one entry whose layer is null
        return [x for x in value if x.get("layer") is not None] if isinstance(value, list) else value


class GrowthRow(Row):
    day: int
    created: int


class PendingRow(Row):
    pending: int
