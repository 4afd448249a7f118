"""Small explicit mappings between graph records and domain models."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from hippograph.cues import Cue
from hippograph.models import Layer, MemoryEdge, MemoryNode
from hippograph.scope import Scope

_JSON_FIELDS = ("properties", "retraction")
_INTERNAL = ("scope_depth", "search_text", "scope_tag", "scope_lo", "scope_hi")


def scope_tag(scope_key: str) -> str:
    """A digits-only token naming a scope inside the fulltext index (analyzers leave digits be)."""
    return str(int(hashlib.sha1(scope_key.encode()).hexdigest()[:15], 16))


def node_to_props(node: MemoryNode, scope: Scope) -> dict[str, Any]:
    """A flat property map for Neo4j: JSON-encoded maps, scope fields (the key, depth, fulltext
    tag and chain interval), fulltext text."""
    data = node.model_dump(mode="json", exclude={"embedding"})  # a list of floats already: not copied
    data["embedding"] = node.embedding
    for key in _JSON_FIELDS:
        data[key] = json.dumps(data[key], sort_keys=True) if data[key] is not None else None
    data["scope_key"] = scope.key
    data["scope_depth"] = scope.depth
    data["search_text"] = node.search_text
    data["scope_tag"] = scope_tag(scope.key)
    data["scope_lo"] = scope.chain_lo  # the vector indexes' filter: one range search per chain
    data["scope_hi"] = scope.chain_hi
    if not has_direction(data.get("embedding")):
        data["embedding"] = None  # a zero vector would fail every cosine over it (see has_direction)
    return {k: v for k, v in data.items() if v is not None}


def update_params(props: Mapping[str, Any]) -> dict[str, Any]:
    """The ``props`` and ``embedding`` parameters of ``update_node``: a new embedding travels
    apart (the query writes it once, as float32), an explicit ``None`` stays in ``props`` (it
    clears the stored one)."""
    changed = dict(props)
    embedding = changed.pop("embedding", None)
    if embedding is None and "embedding" in props:
        changed["embedding"] = None
    return {"props": changed, "embedding": embedding}


def upsert_rows(
    scope: Scope, nodes: Sequence[MemoryNode], cues: Mapping[str, Sequence[Cue]]
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The parameters of ``upsert_nodes``: one row per node (its props and the indices of its
    cues) and the batch's distinct cues, in first-seen order."""
    table: dict[tuple[str, str], int] = {}
    distinct: list[dict[str, str]] = []
    rows = []
    for node in nodes:
        indices = []
        for cue in cues.get(node.id, ()):
            index = table.get((cue.kind, cue.key))
            if index is None:
                index = table[cue.kind, cue.key] = len(distinct)
                distinct.append(cue.row())
            indices.append(index)
        rows.append(
            {
                "id": node.id,
                "layer_label": layer_label(node.layer),
                "props": node_to_props(node, scope),
                "cues": indices,
            }
        )
    return rows, distinct


def has_direction(vector: Any) -> bool:
    """A vector Neo4j's cosine accepts: present and not all zeros (an embedder gives the zero
    vector for text it has no words for; stored, it would fail every exact-scan recall and dedup
    of the scopes that see it)."""
    return vector is not None and any(vector)


def props_to_node(props: dict[str, Any]) -> MemoryNode:
    data = {k: v for k, v in props.items() if k not in _INTERNAL and not k.startswith("_")}
    for key in _JSON_FIELDS:
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return MemoryNode.model_validate(data)


def edge_to_props(edge: MemoryEdge) -> dict[str, Any]:
    data = edge.model_dump(mode="json", exclude={"source", "target", "relationship"})
    return {k: v for k, v in data.items() if v is not None}


def props_to_edge(props: dict[str, Any]) -> MemoryEdge:
    return MemoryEdge.model_validate(props)


def layer_label(layer: Layer) -> str:
    return layer.label


def scope_rows(scope: Scope) -> list[dict[str, Any]]:
    """Root-first rows for ``upsert_scopes``."""
    rows = []
    for s in scope.ancestors():
        parent = s.parent
        rows.append(
            {
                "key": s.key,
                "kind": s.kind,
                "id": s.id,
                "depth": s.depth,
                "name": f"{s.kind}:{s.id}" + (f" @{s.namespace}" if s.namespace else ""),
                "parent_key": parent.key if parent else None,
            }
        )
    return rows
