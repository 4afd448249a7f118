"""Test helpers: building memories with explicit times, and reading a subtree back raw.

The few Cypher statements tests need to seed or inspect the graph are files under
``cypher/`` next to this module (never strings in Python)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

from hippograph.models import Layer, MemoryEdge, MemoryNode, Provenance, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection

NOW = 1_750_000_000.0
MINUTE = 60.0
HOUR = 3600.0
DAY = 86_400.0
_CYPHER = Path(__file__).parent / "cypher"


async def run_file(conn: Neo4jConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    text = (_CYPHER / f"{name}.cypher").read_text()
    async with conn.driver.session(database=conn.database) as session:
        result = await session.run(text, params)  # type: ignore[arg-type]
        return await result.data()


def mem(layer: Layer, label: str, *, at: float, nid: str | None = None, **kw: Any) -> MemoryNode:
    """A memory created and last updated at ``at`` (unless given otherwise)."""
    fields: dict[str, Any] = {
        "content": kw.pop("content", label),
        "created_at": at,
        "updated_at": kw.pop("updated_at", at),
        **kw,
    }
    if nid is not None:
        fields["id"] = nid
    return MemoryNode(layer=layer, label=label, **fields)


def fact(label: str, *, at: float = NOW - DAY, **kw: Any) -> MemoryNode:
    return mem(Layer.SEMANTIC, label, at=at, **kw)


def event(label: str, *, at: float, kind: str = "event", **kw: Any) -> MemoryNode:
    props = {"kind": kind, **kw.pop("properties", {})}
    return mem(Layer.EPISODIC, label, at=at, occurred_at=at, properties=props, **kw)


def edge(a: MemoryNode, b: MemoryNode, rel: Relationship, **kw: Any) -> MemoryEdge:
    kw.setdefault("created_at", NOW - DAY)
    return MemoryEdge(source=a.id, target=b.id, relationship=rel, **kw)


def unit_vector(rng: random.Random, dims: int = 384) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(dims)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def near(vector: list[float], rng: random.Random, noise: float = 0.05) -> list[float]:
    """A unit vector near ``vector``: cosine about 1 - noise**2 / 2 (0.9988 for 0.05)."""
    v = [x + rng.gauss(0.0, noise / math.sqrt(len(vector))) for x in vector]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


async def pending(conn: Neo4jConnection, scope: Scope, *links: tuple[str, str, float]) -> None:
    rows = [{"scope_key": scope.key, "source": s, "target": t, "score": sc} for s, t, sc in links]
    await run_file(conn, "seed_pending_links", rows=rows, now=NOW)


async def pending_links(conn: Neo4jConnection, scope: Scope) -> list[dict[str, Any]]:
    return [r["pending"] for r in await run_file(conn, "get_pending_links", scope_key=scope.key)]


async def snapshot(conn: Neo4jConnection, scope: Scope) -> list[dict[str, Any]]:
    """Every memory of the subtree, raw, with its outgoing relationships (sorted)."""
    rows = await run_file(conn, "get_subtree_snapshot", scope_key=scope.key)
    nodes = []
    for row in rows:
        node = dict(row["node"])
        node["out"] = sorted(node["out"], key=lambda r: json.dumps(r, sort_keys=True, default=str))
        nodes.append(node)
    return nodes


async def nodes_by_label(store: GraphStore, scope: Scope) -> dict[str, MemoryNode]:
    found = await store.query_subtree(scope, {"include_retracted": True}, limit=None)
    return {n.label: n for n in found}


async def edges_of(store: GraphStore, scope: Scope, rel: Relationship) -> list[MemoryEdge]:
    return await store.query_edges(scope, {"relationship": rel}, limit=100_000)


__all__ = ["DAY", "HOUR", "MINUTE", "NOW", "Provenance"]
