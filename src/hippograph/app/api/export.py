"""Export and import of a scope subtree as JSON lines (the GDPR export): a header line, then one
line per memory and one per edge, ids kept. Import writes memories scope by scope through the
store (idempotent by id; an id used by another scope is a conflict) and then the edges;
memories exported without their vectors are embedded again."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from hippograph.app.api.repository import ExportRepository
from hippograph.errors import InvalidInputError
from hippograph.memory import Memory
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.scope import Scope

FORMAT = "hippograph-export/1"
BATCH = 500


async def export_lines(
    repo: ExportRepository, scope: Scope, *, embeddings: bool = False, batch: int = BATCH
) -> AsyncIterator[str]:
    """JSON lines of the subtree: header, memories, edges (each line ends with a newline)."""
    yield json.dumps({"type": "header", "format": FORMAT, "scope": scope.key, "embeddings": embeddings}) + "\n"
    after: str | None = None
    while True:
        nodes = await repo.memories(scope.key, scope.subtree_prefix, after, batch, embeddings)
        for node in nodes:
            yield json.dumps({"type": "memory", "memory": node.model_dump(mode="json")}) + "\n"
        if len(nodes) < batch:
            break
        after = nodes[-1].id
    after = None
    while True:
        edges = await repo.edges(scope.key, scope.subtree_prefix, after, batch)
        for edge in edges:
            yield json.dumps({"type": "edge", "edge": edge.model_dump(mode="json")}) + "\n"
        if len(edges) < batch:
            break
        after = edges[-1].id


class ImportReport(BaseModel):
    memories: int = 0
    edges: int = 0
    embedded: int = 0
    scopes: list[str] = Field(default_factory=list)


def parse_lines(lines: Iterable[str]) -> tuple[list[MemoryNode], list[MemoryEdge]]:
    """Validate a whole file before anything is written (a bad line writes nothing)."""
    nodes: list[MemoryNode] = []
    edges: list[MemoryEdge] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item: Any = json.loads(line)
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "header":
                if item.get("format") != FORMAT:
                    raise InvalidInputError(f"line {n}", f"unknown format {item.get('format')!r:.40}")
            elif kind == "memory":
                node = MemoryNode.model_validate(item["memory"])
                Scope.parse(node.scope_key)
                nodes.append(node)
            elif kind == "edge":
                edge = MemoryEdge.model_validate(item["edge"])
                Scope.parse(edge.scope_key)
                edges.append(edge)
            else:
                raise InvalidInputError(f"line {n}", "type must be header, memory or edge")
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            if isinstance(exc, InvalidInputError):
                raise
            raise InvalidInputError(f"line {n}", str(exc).splitlines()[0][:200]) from None
    return nodes, edges


async def import_records(memory: Memory, nodes: list[MemoryNode], edges: list[MemoryEdge]) -> ImportReport:
    """Write memories (by scope, shallowest first, through their layer: missing vectors and
    cues are computed) and then edges; ids are kept, writing twice changes nothing."""
    report = ImportReport(embedded=sum(1 for n in nodes if n.embedding is None and n.text))
    groups: dict[tuple[str, str], list[MemoryNode]] = {}
    for node in nodes:
        groups.setdefault((node.scope_key, node.layer.value), []).append(node)
    for key, layer in sorted(groups, key=lambda g: (g[0].count("/"), g)):
        group = groups[(key, layer)]
        for start in range(0, len(group), BATCH):
            await memory.get_layer(layer).add(Scope.parse(key), group[start : start + BATCH])
        report.memories += len(group)
    edges_by_scope: dict[str, list[MemoryEdge]] = {}
    for edge in edges:
        edges_by_scope.setdefault(edge.scope_key, []).append(edge)
    for key in sorted(edges_by_scope, key=lambda k: (k.count("/"), k)):
        links = edges_by_scope[key]
        for start in range(0, len(links), BATCH):
            await memory.link(Scope.parse(key), links[start : start + BATCH])
        report.edges += len(links)
    report.scopes = sorted({k for k, _ in groups} | set(edges_by_scope))
    return report
