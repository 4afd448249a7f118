"""Phases that forget: 3 prune_orphans, 8 working_ttl, 9 decay_importance,
9.2 expire_durability, 9.5 prune_retracted."""

from __future__ import annotations

import json

from hippograph.consolidation.context import Counted, Counts, PhaseContext
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.consolidation.report import Phase


class _Pruned(Counted):
    expired: int = 0
    orphans: int = 0


class _Deleted(Counted):
    deleted: int = 0


class _Decayed(Counted):
    decayed: int = 0


class _Retracted(Counted):
    retracted: int = 0
    expired: int = 0
    transient: int = 0
    past_valid_until: int = 0


async def prune_orphans(ctx: PhaseContext) -> Counts:
    """Delete TTL-expired memories, and idle low-importance ones with ≤ 1 live neighbour,
    pass after pass until a pass finds nothing (pruning one can orphan the next)."""
    c = ctx.config
    totals = {"expired": 0, "orphans": 0, "passes": 0}
    for _ in range(c.prune_max_passes):
        row = await ctx.batch(
            Q.DELETE_ORPHANS,
            _Pruned,
            layers=[layer.value for layer in c.prune_layers],
            importance_below=c.prune_importance_below,
            idle=c.prune_idle,
            max_neighbors=c.prune_max_neighbors,
        )
        found = row.counts()
        totals["passes"] += 1
        totals["expired"] += found["expired"]
        totals["orphans"] += found["orphans"]
        if not any(found.values()):
            break
    return totals


async def working_ttl(ctx: PhaseContext) -> Counts:
    """Delete working memory past its ttl (transient without a ttl: after 1 h)."""
    row = await ctx.batch(Q.DELETE_EXPIRED_WORKING, _Deleted, transient_ttl=ctx.config.working_transient_ttl)
    return row.counts()


async def decay_importance(ctx: PhaseContext) -> Counts:
    """Minus 0.5 importance (floor 1.0) for semantic memories idle > 30 days, once per interval."""
    c = ctx.config
    row = await ctx.batch(
        Q.DECAY_IMPORTANCE,
        _Decayed,
        idle=c.decay_idle,
        step=c.decay_step,
        floor=c.decay_floor,
        exempt_from=c.decay_exempt_from,
        interval=c.decay_interval,
    )
    return row.counts()


_EXPIRY_RULES = {
    "expired": ("durability=expired", "the memory was marked expired"),
    "transient": ("transient>ttl", "a transient memory outlived its time"),
    "valid_until": ("valid_until<=now", "the fact is no longer valid"),
}


async def expire_durability(ctx: PhaseContext) -> Counts:
    """Soft-retract expired memories, transient ones older than 24 h and facts past valid_until."""
    retractions = {
        key: json.dumps(
            {
                "phase": Phase.EXPIRE_DURABILITY.value,
                "rule": rule,
                "reason": reason,
                "merged_into": None,
            },
            sort_keys=True,
        )
        for key, (rule, reason) in _EXPIRY_RULES.items()
    }
    row = await ctx.batch(
        Q.RETRACT_EXPIRED, _Retracted, transient_ttl=ctx.config.transient_ttl, retractions=retractions
    )
    return row.counts()


async def prune_retracted(ctx: PhaseContext) -> Counts:
    """Hard-delete memories retracted longer than the grace period (7 days) ago."""
    row = await ctx.batch(Q.DELETE_RETRACTED, _Deleted, grace=ctx.config.retraction_grace)
    return row.counts()
