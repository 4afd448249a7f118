"""Phases that strengthen and link: 1 strengthen, 1.5 cooccurrence, 2 tag_risk,
2.5 pending_edges."""

from __future__ import annotations

import json
from typing import Any

from hippograph.consolidation.context import Counted, Counts, PhaseContext
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.store.transaction import Row

FIRST_RUN = -1.0e18


class _Strengthened(Counted):
    strengthened: int = 0
    seen_again: int = 0


class _Pairs(Row):
    """``[id, id, key]`` triples, handed back to the linking job as they are."""

    pairs: list[Any]


class _Edges(Counted):
    edges: int = 0


class _Tagged(Counted):
    tagged: int = 0


class _Pending(Counted):
    edges: int = 0
    consumed: int = 0


async def strengthen(ctx: PhaseContext) -> Counts:
    """+0.5 importance for memories seen ≥ 2 times (access + 0.5·spreading) since last time."""
    c = ctx.config
    row = await ctx.batch(
        Q.STRENGTHEN_MEMORIES,
        _Strengthened,
        min_seen=c.strengthen_min_seen,
        spreading_factor=c.strengthen_spreading_factor,
        step=c.strengthen_step,
        max_importance=c.importance_max,
    )
    return row.counts()


async def cooccurrence(ctx: PhaseContext) -> Counts:
    """CO_OCCURRED edges between each memory and the next ``cap // 2`` memories updated after
    it within 15 min (so at most ``cap`` = 5 edges each), for memories updated since the
    previous pass (its time is kept on the lease)."""
    c = ctx.config
    watermark = ctx.state.get("cooccurrence_watermark")
    since = float(watermark) - c.cooccurrence_window if watermark is not None else FIRST_RUN
    read = await ctx.read(
        Q.GET_COOCCURRENCE_PAIRS,
        _Pairs,
        since=since,
        window=c.cooccurrence_window,
        cap=c.cooccurrence_degree_cap,
        reach=max(1, c.cooccurrence_degree_cap // 2),
        layers=[layer.value for layer in c.cooccurrence_layers],
    )
    pairs = read[0].pairs if read else []
    row = (
        await ctx.batch(Q.LINK_COOCCURRENCES, _Edges, pairs=pairs, weight=c.cooccurrence_weight) if pairs else _Edges()
    )
    await ctx.remember(cooccurrence_watermark=ctx.now)
    return row.counts()


async def tag_risk(ctx: PhaseContext) -> Counts:
    """Flag memories whose text names a risk word: ``properties.risk`` and ``risk_tagged_at``."""
    fields = '"risk": true, "risk_tagged_at": ' + json.dumps(ctx.now)
    row = await ctx.batch(
        Q.TAG_RISKS, _Tagged, pattern=ctx.config.risk_pattern, terms=list(ctx.config.risk_terms), fields=fields
    )
    return row.counts()


async def pending_edges(ctx: PhaseContext) -> Counts:
    """Write the activation's pending links as INFERRED edges; consume every pending link."""
    row = await ctx.batch(Q.LINK_PENDING, _Pending, default_weight=ctx.config.pending_default_weight)
    return row.counts()
