"""The GraphML form of an export, for graph tools (Gephi, yEd, Cytoscape, networkx): the same
records as the JSON lines — memories as nodes, edges as edges, ids kept — so a GraphML file
imports back like a JSON-lines one. GraphML holds scalars only: list and map fields (vectors,
properties, provenance) are written as JSON text and named in the graph's ``json_fields``
attribute, which import reads to decode them. Needs the ``analysis`` extra (networkx); the whole
subtree is held in memory while it is written or read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from hippograph._extras import requires_extra
from hippograph.errors import InvalidInputError
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.scope import Scope

with requires_extra("analysis"):
    import networkx as nx

__all__ = ["FORMAT", "read_graphml", "write_graphml"]

FORMAT = "hippograph-graphml/1"
M = TypeVar("M", bound=BaseModel)


def write_graphml(scope: Scope, nodes: list[MemoryNode], edges: list[MemoryEdge], out: Path) -> None:
    """Write ``nodes`` and ``edges`` (of ``scope``'s subtree) as one GraphML document."""
    encoded: set[str] = set()
    graph = nx.MultiDiGraph()
    for node in nodes:
        graph.add_node(node.id, **_attributes(node, encoded, skip={"id"}))
    for edge in edges:
        graph.add_edge(edge.source, edge.target, key=edge.id, **_attributes(edge, encoded, skip={"source", "target"}))
    graph.graph.update(format=FORMAT, scope=scope.key, json_fields=",".join(sorted(encoded)))
    nx.write_graphml(graph, out, infer_numeric_types=True)


def read_graphml(path: Path) -> tuple[list[MemoryNode], list[MemoryEdge]]:
    """Validate a whole GraphML export before anything is written (a bad element writes nothing)."""
    try:
        graph = nx.read_graphml(path, force_multigraph=True)
    except Exception as exc:  # networkx raises several kinds for a malformed document
        raise InvalidInputError("file", f"not a GraphML document: {exc}"[:200]) from None
    if graph.graph.get("format") != FORMAT:
        raise InvalidInputError("file", f"not a hippograph GraphML export (format {graph.graph.get('format')!r:.40})")
    decoded = {f for f in str(graph.graph.get("json_fields", "")).split(",") if f}
    nodes: list[MemoryNode] = []
    for node_id, attrs in graph.nodes(data=True):
        fields = {"id": node_id, **_decode(attrs, decoded, f"node {node_id}")}
        nodes.append(_valid(MemoryNode, fields, f"node {node_id}"))
    edges: list[MemoryEdge] = []
    for source, target, edge_id, attrs in graph.edges(keys=True, data=True):
        fields = {"id": edge_id, "source": source, "target": target, **_decode(attrs, decoded, f"edge {edge_id}")}
        edges.append(_valid(MemoryEdge, fields, f"edge {edge_id}"))
    return nodes, edges


def _attributes(record: BaseModel, encoded: set[str], *, skip: set[str]) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for name, value in record.model_dump(mode="json").items():
        if name in skip or value is None:
            continue
        if isinstance(value, list | dict):
            encoded.add(name)
            value = json.dumps(value, separators=(",", ":"))
        attrs[name] = value
    return attrs


def _decode(attrs: dict[str, Any], decoded: set[str], where: str) -> dict[str, Any]:
    try:
        return {k: json.loads(v) if k in decoded and isinstance(v, str) else v for k, v in attrs.items()}
    except json.JSONDecodeError as exc:
        raise InvalidInputError(where, f"a JSON field does not parse: {exc}"[:200]) from None


def _valid(model: type[M], fields: dict[str, Any], where: str) -> M:
    try:
        record = model.model_validate(fields)
        Scope.parse(str(fields.get("scope_key")))
    except ValidationError as exc:
        raise InvalidInputError(where, str(exc).splitlines()[0][:200]) from None
    return record
