"""Phases that shape the graph: 4 meta_nodes, 5 soul_corrections."""

from __future__ import annotations

import json
from typing import Any

from hippograph.consolidation.context import Counted, Counts, PhaseContext, SkipPhase
from hippograph.consolidation.phases._nodes import derived_id, node_row
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.models import MAX_LABEL, Layer, MemoryNode
from hippograph.store.transaction import Row

MAX_REJECTED = 20


class _Cluster(Row):
    """Semantic memories of one scope sharing a label prefix."""

    scope_key: str
    prefix: str
    member_ids: list[str]
    sample_labels: list[Any]


class _MetasWritten(Counted):
    metas: int = 0
    edges: int = 0


class _Soul(Row):
    """A SOUL profile with recorded corrections: its properties as stored (a JSON string)."""

    id: str
    properties: str


class _SoulsUpdated(Row):
    updated: int


async def meta_nodes(ctx: PhaseContext) -> Counts:
    """Clusters of ≥ 3 semantic memories sharing a label prefix get a META:<prefix> memory
    (importance 7.0) with ≤ 10 CLUSTERS edges; META memories are never clustered."""
    c = ctx.config
    clusters = await ctx.read(
        Q.GET_META_CLUSTERS,
        _Cluster,
        min_cluster=c.meta_min_cluster,
        max_edges=c.meta_max_edges,
        min_prefix_length=c.meta_min_prefix_length,
        stopwords=list(c.meta_stopwords),
    )
    if not clusters:
        return {"clusters": 0, "metas": 0, "edges": 0}
    rows = []
    for cluster in clusters:
        prefix, key = cluster.prefix, cluster.scope_key
        samples = "; ".join(str(s) for s in cluster.sample_labels)
        node = MemoryNode(
            id=derived_id("meta", key, prefix),
            layer=Layer.SEMANTIC,
            scope_key=key,
            label=f"META:{prefix}"[:MAX_LABEL],
            content=f"Cluster of memories about '{prefix}', e.g. {samples}",
            properties={"meta": True, "prefix": prefix},
            importance=c.meta_importance,
            created_at=ctx.now,
            updated_at=ctx.now,
        )
        rows.append(node_row(node, member_ids=cluster.member_ids))
    written = await ctx.write(Q.UPSERT_META_NODES, _MetasWritten, rows=rows, max_edges=c.meta_max_edges)
    return {"clusters": len(clusters), **(written[0] if written else _MetasWritten()).counts()}


def _corrections(value: Any) -> list[tuple[str, Any]] | None:
    """Corrections as (key, value) pairs: a ``{key: value}`` map or a list of
    ``{"key": …, "value": …}`` objects; None when the shape is neither."""
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, list) and all(isinstance(i, dict) and "key" in i for i in value):
        return [(str(i["key"]), i.get("value")) for i in value]
    return None


async def soul_corrections(ctx: PhaseContext) -> Counts:
    """Apply the corrections recorded on SOUL:<name> profiles (``properties.corrections``) to
    the keys the profile schema allows; others are kept aside as ``rejected_corrections``."""
    schema = ctx.config.soul_schema
    if schema is None:
        raise SkipPhase("no profile schema configured (config.soul_schema is None)")
    allowed = set(schema)
    counts = {"profiles": 0, "applied": 0, "rejected": 0}
    rows = []
    for record in await ctx.read(Q.GET_SOUL_NODES, _Soul):
        props = json.loads(record.properties)
        if "corrections" not in props:
            continue
        pairs = _corrections(props.pop("corrections"))
        rejected = [{"key": k, "value": v} for k, v in pairs or [] if k not in allowed]
        if pairs is None:
            rejected = [{"key": "?", "value": "unreadable corrections"}]
        for key, value in pairs or []:
            if key in allowed:
                props[key] = value
                counts["applied"] += 1
        if rejected:
            kept = [*props.get("rejected_corrections", []), *rejected]
            props["rejected_corrections"] = kept[-MAX_REJECTED:]
            counts["rejected"] += len(rejected)
        props["corrected_at"] = ctx.now
        counts["profiles"] += 1
        rows.append(
            {
                "id": record.id,
                "expected": record.properties,
                "properties": json.dumps(props, sort_keys=True),
            }
        )
    if rows:
        await ctx.write(Q.UPDATE_SOUL_NODES, _SoulsUpdated, rows=rows)
    return counts
