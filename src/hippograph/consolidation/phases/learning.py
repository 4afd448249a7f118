"""Phases that learn: 11 synthetic_links, 12 procedural_promotion."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import JsonValue

from hippograph.consolidation.context import Counts, PhaseContext, ints
from hippograph.consolidation.hooks import first_and_last_sentence
from hippograph.consolidation.phases._nodes import derived_id, node_row
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.models import MAX_LABEL, Layer, MemoryNode

MAX_STEPS = 5
STEP_CHARS = 300


def _day(at: object) -> str:
    return datetime.fromtimestamp(float(at), UTC).date().isoformat() if isinstance(at, int | float) else "?"


async def synthetic_links(ctx: PhaseContext) -> Counts:
    """SYNTHETIC_LINK (weight 0.2) between facts MENTIONed together by ≥ 2 of a scope's last
    200 episodes; the 500 best-supported pairs."""
    c = ctx.config
    row = await ctx.batch(
        Q.LINK_SYNTHETIC,
        recent=c.synthetic_recent_episodes,
        min_episodes=c.synthetic_min_episodes,
        max_pairs=c.synthetic_max_pairs,
        weight=c.synthetic_weight,
    )
    return ints(row, "pairs", "edges")


async def procedural_promotion(ctx: PhaseContext) -> Counts:
    """An action seen in ≥ 3 episodic events within 30 days becomes a DRAFT skill (status
    draft, active false), ≤ 5 per run; never one that exists under that name, authored or not."""
    c = ctx.config
    patterns = await ctx.read(
        Q.GET_ACTION_PATTERNS,
        window=c.procedural_window,
        min_occurrences=c.procedural_min_occurrences,
        min_chars=c.procedural_min_action_chars,
        separators=list(c.action_separators),
        max_per_run=c.procedural_max_per_run,
    )
    if not patterns:
        return {"candidates": 0, "drafts": 0, "evidence_edges": 0}
    rows = []
    for p in patterns:
        action, key, n = str(p["action"]), str(p["scope_key"]), int(p["occurrences"])
        lines = dict.fromkeys(first_and_last_sentence(str(t), STEP_CHARS) for t in p["examples"])
        steps: list[JsonValue] = [line for line in [x for x in lines if x][:MAX_STEPS]]
        evidence: list[JsonValue] = [str(i) for i in p["evidence_ids"]]
        node = MemoryNode(
            id=derived_id("skill", key, action),
            layer=Layer.PROCEDURAL,
            scope_key=key,
            label=action[:MAX_LABEL],
            content=f"Draft skill learned from {n} recurring events: {action}",
            properties={
                "status": "draft",
                "active": False,
                "authored": False,
                "source": "consolidation",
                "pattern": action,
                "occurrences": n,
                "steps": steps,
                "context": f"seen {n} times from {_day(p['first_at'])} to {_day(p['last_at'])}",
                "evidence_ids": evidence,
            },
            created_at=ctx.now,
            updated_at=ctx.now,
        )
        rows.append(node_row(node, evidence_ids=list(p["evidence_ids"])))
    written = await ctx.write(Q.UPSERT_DRAFT_SKILLS, rows=rows)
    return {
        "candidates": len(patterns),
        **ints(written[0] if written else {}, "drafts", "evidence_edges"),
    }
