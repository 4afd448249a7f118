"""Helpers of the memory tests: a clock, crafted memories and edges, and the few Cypher
statements tests need to inspect the graph (files under ``cypher/``, never strings here)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection

_CYPHER = Path(__file__).parent / "cypher"
INJECTION = "x`}) DETACH DELETE n //"
INJECTIONS = [
    INJECTION,
    "x`) WITH n MATCH (m) DETACH DELETE m //",
    "'; MATCH (n) DETACH DELETE n; //",
    '" OR 1=1 --',
    "search_text:* OR scope_tag:*",
    "*:* AND NOT layer:x",
]


class TickingClock:
    """Wall-clock time that strictly increases between reads (FIFO order is unambiguous)."""

    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self) -> float:
        self.last = max(time.time(), self.last + 0.001)
        return self.last


async def run_file(conn: Neo4jConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    text = (_CYPHER / f"{name}.cypher").read_text()
    async with conn.driver.session(database=conn.database) as session:
        result = await session.run(text, params)  # type: ignore[arg-type]
        return await result.data()


async def edges_of(conn: Neo4jConnection, scope: Scope) -> list[dict[str, Any]]:
    """Every memory→memory relationship of the subtree: {type, source, target, weight, id}."""
    return await run_file(conn, "get_subtree_edges", scope_key=scope.key)


async def raw_memories(conn: Neo4jConnection, scope: Scope) -> dict[str, dict[str, Any]]:
    """Every memory of the subtree with all stored properties (embedding excluded), by id."""
    rows = await run_file(conn, "get_subtree_memories", scope_key=scope.key)
    return {r["m"]["id"]: r["m"] for r in rows}


async def total_memories(conn: Neo4jConnection) -> int:
    return int((await run_file(conn, "get_memory_total"))[0]["n"])


def node(layer: Layer, text: str, *, nid: str | None = None, embedding: list[float] | None = None,
         **fields: Any) -> MemoryNode:  # fmt: skip
    data: dict[str, Any] = {
        "layer": layer,
        "label": text[:100],
        "content": text,
        "embedding": embedding,
        **fields,
    }
    if nid is not None:
        data["id"] = nid
    return MemoryNode(**data)


def edge(source: str, target: str, rel: Relationship = Relationship.RELATES_TO, weight: float = 1.0) -> MemoryEdge:
    return MemoryEdge(source=source, target=target, relationship=rel, weight=weight)


async def add(store: GraphStore, scope: Scope, *nodes: MemoryNode) -> list[MemoryNode]:
    return await store.add_nodes(scope, list(nodes))
