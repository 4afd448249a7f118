"""Spreading activation and N-hop hydration (reference §5) as parameterised Cypher.

Two kinds of spreading, both one query per step:

* over memory edges (``NEXT``, ``MENTIONS``, ``RELATES_TO`` …): from every seed, at most
  ``fan_out`` strongest neighbours per node, activation = parent × ``base_decay`` × edge
  factor per hop, breadth-first to ``max_hops + 1`` hops, at most ``max_nodes`` new memories,
  nothing below ``threshold``. A memory keeps the strongest activation that reaches it.
* through shared cues (``(:Memory)-[:HAS_CUE]->(:Cue)<-[:HAS_CUE]-(:Memory)``): a session
  passes ``session_decay`` × its best member to every member; a keyword or name passes
  ``cue_decay`` × seed × rarity, rarity = ln(1 + N/degree) / ln(1 + N).

Every reached memory keeps the path that reached it (node ids and relationship types).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hippograph.cues import CueKind
from hippograph.models import Layer
from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.queries import RetrievalQuery as Q
from hippograph.retrieval.types import ActivatedNode, PathStep
from hippograph.store.connection import Neo4jConnection


def edge_factor(weight: float | None) -> float:
    """Stronger edges pass more activation: 1.0 at weight ≥ 1, proportionally less below."""
    return 1.0 if weight is None else max(0.0, min(1.0, float(weight)))


async def spread_edges(
    conn: Neo4jConnection,
    *,
    seeds: Mapping[str, float],
    visible: Sequence[str],
    config: ActivationConfig,
    layers: Sequence[Layer] | None,
) -> tuple[dict[str, ActivatedNode], bool]:
    """Activation arriving at each memory over memory edges (seeds included, as receivers).
    Returns (memory id → strongest arrival, whether the node cap cut the spread)."""
    arrived: dict[str, ActivatedNode] = {}
    frontier = {sid: (value, [PathStep(node_id=sid)]) for sid, value in seeds.items() if value > 0}
    layer_values = [layer.value for layer in layers] if layers else None
    added = 0
    capped = False
    for hop in range(1, config.max_hops + 2):
        if not frontier:
            break
        rows = await conn.read(
            Q.GET_ACTIVATION_STEP,
            frontier=list(frontier),
            visible=list(visible),
            layers=layer_values,
            fan_out=config.fan_out,
        )
        step: dict[str, ActivatedNode] = {}
        for row in rows:
            value, path = frontier[row["source"]]
            target = row["id"]
            if any(p.node_id == target for p in path):
                continue
            incoming = value * config.base_decay * edge_factor(row["weight"])
            if incoming < config.threshold:
                continue
            if target not in step or incoming > step[target].activation:
                step[target] = ActivatedNode(
                    id=target,
                    activation=incoming,
                    hop=hop,
                    path=[*path, PathStep(node_id=target, relationship=row["relationship"])],
                )
        frontier = {}
        for node in sorted(step.values(), key=lambda a: (-a.activation, a.id)):
            known = node.id in arrived or node.id in seeds
            if not known and added >= config.max_nodes:
                capped = True
                continue
            if node.id in arrived and arrived[node.id].activation >= node.activation:
                continue
            if not known:
                added += 1
            arrived[node.id] = node
            if node.id not in seeds:  # seeds already spread with their own value
                frontier[node.id] = (node.activation, node.path)
    return arrived, capped


async def spread_associations(
    conn: Neo4jConnection,
    *,
    session_seeds: Mapping[str, float],
    cue_seeds: Mapping[str, float],
    visible: Sequence[str],
    config: ActivationConfig,
    layers: Sequence[Layer] | None,
    population: int,
    limit: int = 1000,
) -> tuple[dict[str, ActivatedNode], dict[str, ActivatedNode]]:
    """Activation arriving through shared sessions and through shared keyword / name cues
    (each memory keeps its strongest arrival of each kind). One read."""
    if not session_seeds and not cue_seeds:
        return {}, {}
    rows = await conn.read(
        Q.GET_ASSOCIATIONS,
        session_seeds=[{"id": i, "value": v} for i, v in session_seeds.items()] if config.session_decay > 0 else [],
        cue_seeds=[{"id": i, "value": v} for i, v in cue_seeds.items()] if config.cue_decay > 0 else [],
        session_decay=config.session_decay,
        cue_decay=config.cue_decay,
        visible=list(visible),
        layers=[layer.value for layer in layers] if layers else None,
        max_degree=config.max_cue_degree,
        population=max(population, 2),
        threshold=config.threshold,
        limit=limit,
    )
    session: dict[str, ActivatedNode] = {}
    cue: dict[str, ActivatedNode] = {}
    for r in rows:
        via = f"{CueKind.SESSION.value}:{r['key']}" if r["part"] == "session" else str(r["key"])
        node = ActivatedNode(
            id=r["id"],
            activation=float(r["activation"]),
            hop=2,
            path=[
                PathStep(node_id=r["seed"]),
                PathStep(node_id=f"cue:{via}", relationship="HAS_CUE"),
                PathStep(node_id=r["id"], relationship="HAS_CUE"),
            ],
        )
        (session if r["part"] == "session" else cue)[r["id"]] = node
    return session, cue
