"""networkx views of memory: a recall's activation trace and a scope's subgraph.

networkx is an optional dependency (``pip install 'hippograph[analysis]'``), imported when a
function here runs, never at import time. Both functions return a ``networkx.MultiDiGraph``
whose node and edge attributes are plain scalars (strings, numbers, booleans), so the graph
writes to GraphML or GEXF as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Protocol

from hippograph.errors import ConfigurationError

if TYPE_CHECKING:
    import networkx as nx

    from hippograph.models import MemoryEdge, MemoryNode
    from hippograph.retrieval.types import RecallResult
    from hippograph.scope import Scope
    from hippograph.store.connection import Neo4jConnection
    from hippograph.store.graph_store import GraphStore

__all__ = ["scope_subgraph", "to_networkx"]

EDGE_PAGE = 500


def _nx() -> Any:
    try:
        import networkx
    except ImportError:
        raise ConfigurationError("networkx is needed for graph analysis: pip install 'hippograph[analysis]'") from None
    return networkx


def node_attributes(node: MemoryNode) -> dict[str, Any]:
    """The scalar attributes of a memory as a graph node (no embedding, no JSON maps)."""
    attrs: dict[str, Any] = {
        "kind": "memory",
        "layer": node.layer.value,
        "label": node.label,
        "text": node.text,
        "scope_key": node.scope_key,
        "importance": node.importance,
        "created_at": node.created_at,
        "access_count": node.access_count,
        "retracted": node.retracted,
    }
    optional = {
        "key": node.key,
        "session_id": node.session_id,
        "occurred_at": node.occurred_at,
        "superseded_by": node.superseded_by,
    }
    attrs.update({k: v for k, v in optional.items() if v is not None})
    return attrs


def edge_attributes(edge: MemoryEdge) -> dict[str, Any]:
    return {
        "id": edge.id,
        "relationship": edge.relationship.value,
        "weight": edge.weight,
        "provenance": edge.provenance.value,
        "uses": edge.uses,
        "created_at": edge.created_at,
        "scope_key": edge.scope_key,
    }


def to_networkx(result: RecallResult, nodes: Iterable[MemoryNode] = ()) -> nx.MultiDiGraph:
    """The activation trace of one recall as a directed multigraph.

    Nodes are the recall's seeds, the memories activation reached and the recalled items, plus a
    ``kind="cue"`` node for each shared cue or session an association went through. Edges point
    the way activation travelled (seed outwards), keyed by relationship type. Node attributes:
    ``seed`` (bool), ``hop`` (0 for seeds), ``activation`` (what spreading added), and for
    recalled items ``rank``, ``score``, ``relevance``, ``channels``; memory attributes (``layer``,
    ``text``, …) for the items and for any memory passed in ``nodes`` (fetch the reached ones
    with ``GraphStore.get_nodes`` to have layers for all).

    Args:
        result: What ``recall`` returned.
        nodes: Extra memories to annotate nodes with (e.g. the activated ones).

    Raises:
        ConfigurationError: networkx is not installed.
    """
    graph: nx.MultiDiGraph = _nx().MultiDiGraph(query=result.query, scope_key=result.scope_key)
    seeds = set(result.activation.seeds)
    for seed in result.activation.seeds:
        graph.add_node(seed, kind="memory", seed=True, hop=0, activation=0.0)
    paths = []
    for activated in result.activation.activated:
        attrs = graph.nodes[activated.id] if activated.id in graph else {}
        graph.add_node(
            activated.id,
            kind="memory",
            seed=activated.id in seeds,
            hop=0 if activated.id in seeds else min(activated.hop, attrs.get("hop", activated.hop)),
            activation=activated.activation,
        )
        paths.append(activated.path)
    for rank, item in enumerate(result.items, 1):
        node_id = item.node.id
        attrs = {"seed": node_id in seeds, "hop": max(len(item.path) - 1, 0), "activation": 0.0}
        attrs.update(graph.nodes[node_id] if node_id in graph else {})
        attrs.update(node_attributes(item.node))
        attrs.update(
            rank=rank,
            score=item.score,
            relevance=item.parts.relevance,
            channels=",".join(sorted(c.value for c in item.channels)),
        )
        graph.add_node(node_id, **attrs)
        paths.append(item.path)
    for path in paths:
        for prev, step in pairwise(path):
            for node_id in (prev.node_id, step.node_id):
                if node_id not in graph:
                    pseudo = node_id.startswith("cue:")
                    graph.add_node(node_id, kind="cue" if pseudo else "memory", seed=False, activation=0.0)
            rel = step.relationship or "RELATES_TO"
            if not graph.has_edge(prev.node_id, step.node_id, key=rel):
                graph.add_edge(prev.node_id, step.node_id, key=rel, relationship=rel)
    for node in nodes:
        if node.id in graph:
            graph.nodes[node.id].update(node_attributes(node))
    for _, attrs in graph.nodes(data=True):
        if attrs.get("kind") == "cue":
            attrs.setdefault("hop", 1)
    return graph


class HasConnection(Protocol):
    """What :func:`scope_subgraph` needs of a ``Memory``: the database it lives in."""

    @property
    def connection(self) -> Neo4jConnection: ...


async def scope_subgraph(
    memory: HasConnection | GraphStore,
    scope: Scope,
    *,
    include_visible: bool = False,
    include_retracted: bool = False,
    max_edges: int = 100_000,
) -> nx.MultiDiGraph:
    """A scope's memories and the edges between them, as a directed multigraph.

    Nodes are the memories of ``scope`` and of every scope below it (``include_visible`` adds
    what the scope sees from its ancestors, e.g. org-wide facts); edges are the ones visible from
    ``scope`` whose two ends are in the graph, keyed by edge id, with ``relationship`` and
    ``weight``. Edges written in a descendant scope are that scope's: build its own subgraph to
    see them.

    Args:
        memory: A ``Memory`` (anything with a ``connection``) or a ``GraphStore``.
        scope: The scope to read.
        include_visible: Also the ancestors' memories this scope can see.
        include_retracted: Also soft-retracted memories (attribute ``retracted=True``).
        max_edges: Stop reading edges after this many.

    Raises:
        ConfigurationError: networkx is not installed.
    """
    from hippograph.store.filters import NodeFilter
    from hippograph.store.graph_store import GraphStore

    store = memory if isinstance(memory, GraphStore) else GraphStore(memory.connection)
    filters = NodeFilter(include_retracted=include_retracted)
    found = await store.query_subtree(scope, filters, limit=None)
    if include_visible:
        found += await store.query_nodes(scope, filters, limit=None)
    graph: nx.MultiDiGraph = _nx().MultiDiGraph(scope_key=scope.key)
    for node in found:
        graph.add_node(node.id, **node_attributes(node))
    offset = 0
    while offset < max_edges:
        page = await store.query_edges(scope, limit=min(EDGE_PAGE, max_edges - offset), offset=offset)
        for edge in page:
            if edge.source in graph and edge.target in graph:
                graph.add_edge(edge.source, edge.target, key=edge.id, **edge_attributes(edge))
        if len(page) < EDGE_PAGE:
            break
        offset += len(page)
    return graph
