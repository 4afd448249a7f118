"""Phases that learn: 11 synthetic_links, 12 procedural_promotion."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from pydantic import JsonValue

from hippograph.audit import audit_params, build_audit_entry
from hippograph.consolidation.context import Counted, Counts, PhaseContext
from hippograph.consolidation.phases._nodes import derived_id, node_row
from hippograph.consolidation.phases.skill_candidates import ActionPattern, Candidate, dedup
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.models import MAX_LABEL, Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store.scores import cosine_from_index, index_from_cosine
from hippograph.store.transaction import Row

MAX_EVIDENCE = 50


class _Synthetic(Counted):
    pairs: int = 0
    edges: int = 0


class _Drafted(Counted):
    drafts: int = 0
    evidence_edges: int = 0


class _DraftsMerged(Counted):
    merged: int = 0
    evidence_edges: int = 0


class _SimilarSkill(Row):
    """The skill nearest candidate ``i`` among those visible from its scope."""

    i: int
    id: str
    scope_key: str
    label: str | None = None
    properties: Any = None
    """As stored: a JSON string."""
    score: float


def _day(at: object) -> str:
    return datetime.fromtimestamp(float(at), UTC).date().isoformat() if isinstance(at, int | float) else "?"


async def synthetic_links(ctx: PhaseContext) -> Counts:
    """SYNTHETIC_LINK (weight 0.2) between facts MENTIONed together by ≥ 2 of a scope's last
    200 episodes; the 500 best-supported pairs."""
    c = ctx.config
    row = await ctx.batch(
        Q.LINK_SYNTHETIC,
        _Synthetic,
        recent=c.synthetic_recent_episodes,
        min_episodes=c.synthetic_min_episodes,
        max_pairs=c.synthetic_max_pairs,
        weight=c.synthetic_weight,
    )
    return row.counts()


async def procedural_promotion(ctx: PhaseContext) -> Counts:
    """An action seen in ≥ 3 episodic events within 30 days (explicit events, and the tool
    calls of ordinary chat turns) becomes a DRAFT skill (status draft, active false), ≤ 5 per
    run; never one that exists under that name, authored or not. Near duplicates (the mean
    embedding of the action's events at cosine ≥ ``procedural_merge_similarity`` with a skill
    or another candidate visible from its scope) are not proposed twice: they join a draft of
    the same scope (union of steps and evidence, an audit entry) or are covered by the
    shallower scope's skill; scopes that cannot see each other never merge."""
    c = ctx.config
    patterns = await ctx.read(
        Q.GET_ACTION_PATTERNS,
        ActionPattern,
        window=c.procedural_window,
        min_occurrences=c.procedural_min_occurrences,
        min_chars=c.procedural_min_action_chars,
        separators=list(c.action_separators),
        max_per_run=c.procedural_max_per_run,
    )
    if not patterns:
        return {"candidates": 0, "drafts": 0, "evidence_edges": 0, "merged": 0, "covered": 0}
    kept, covered = dedup([Candidate.of(p) for p in patterns], c.procedural_merge_similarity)
    similar = await _similar_skills(ctx, kept)
    new_rows, merge_rows = [], []
    for i, cand in enumerate(kept):
        skill = similar.get(i)
        if skill is None:
            new_rows.append(_draft_row(ctx, cand))
        elif skill.scope_key == cand.scope_key and _is_open_draft(skill) and _fresh(cand, skill):
            merge_rows.append(_merge_row(ctx, cand, skill))
        else:
            covered += 1
    written = await ctx.write(Q.UPSERT_DRAFT_SKILLS, _Drafted, rows=new_rows) if new_rows else []
    merged = await ctx.write(Q.UPDATE_DRAFT_SKILLS, _DraftsMerged, rows=merge_rows) if merge_rows else []
    counts = (written[0] if written else _Drafted()).counts()
    more = (merged[0] if merged else _DraftsMerged()).counts()
    return {
        "candidates": len(patterns),
        "drafts": counts["drafts"],
        "evidence_edges": counts["evidence_edges"] + more["evidence_edges"],
        "merged": more["merged"],
        "covered": covered,
    }


async def _similar_skills(ctx: PhaseContext, kept: list[Candidate]) -> dict[int, _SimilarSkill]:
    rows = [
        {"i": i, "visible": Scope.parse(c.scope_key).ancestor_keys(), "embedding": c.vector}
        for i, c in enumerate(kept)
        if c.vector is not None
    ]
    if not rows:
        return {}
    found = await ctx.read(
        Q.GET_SIMILAR_SKILLS,
        _SimilarSkill,
        rows=rows,
        min_score=index_from_cosine(ctx.config.procedural_merge_similarity),
    )
    return {r.i: r for r in found}


def _props(skill: _SimilarSkill) -> dict[str, Any]:
    raw = skill.properties
    loaded = json.loads(raw) if isinstance(raw, str) else {}
    return loaded if isinstance(loaded, dict) else {}


def _is_open_draft(skill: _SimilarSkill) -> bool:
    props = _props(skill)
    authored = bool(props.get("authored")) or (skill.label or "").startswith("authored:")
    return props.get("status") == "draft" and not authored


def _draft_row(ctx: PhaseContext, cand: Candidate) -> dict[str, Any]:
    n = cand.occurrences
    evidence: list[JsonValue] = list(cand.evidence_ids)
    node = MemoryNode(
        id=derived_id("skill", cand.scope_key, cand.action),
        layer=Layer.PROCEDURAL,
        scope_key=cand.scope_key,
        label=cand.action[:MAX_LABEL],
        content=f"Draft skill learned from {n} recurring events: {cand.action}",
        embedding=cand.vector,
        properties={
            "status": "draft",
            "active": False,
            "authored": False,
            "source": "consolidation",
            "pattern": cand.action,
            "occurrences": n,
            "steps": cand.steps(),
            "context": f"seen {n} times from {_day(cand.first_at)} to {_day(cand.last_at)}",
            "evidence_ids": evidence,
        },
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    return node_row(node, evidence_ids=cand.evidence_ids)


def _fresh(cand: Candidate, skill: _SimilarSkill) -> list[str]:
    """The candidate's events the skill was not learned from yet (none: nothing to merge)."""
    known = {str(x) for x in _props(skill).get("evidence_ids") or []}
    return [i for i in cand.evidence_ids if i not in known]


def _merge_row(ctx: PhaseContext, cand: Candidate, skill: _SimilarSkill) -> dict[str, Any]:
    props = _props(skill)
    known = [str(x) for x in props.get("evidence_ids") or []]
    fresh = _fresh(cand, skill)
    earlier = props.get("steps")
    patterns = [str(x) for x in props.get("merged_patterns") or []]
    props.update(
        occurrences=int(props.get("occurrences") or 0) + len(fresh),
        steps=cand.steps(earlier if isinstance(earlier, list) else None),
        evidence_ids=[*known, *fresh][-MAX_EVIDENCE:],
        merged_patterns=list(dict.fromkeys([*patterns, cand.action])),
    )
    cosine = round(cosine_from_index(skill.score), 4)
    entry = build_audit_entry(
        Scope.parse(cand.scope_key), "consolidation", "skill.merge", skill.id,
        {"phase": "procedural_promotion", "pattern": cand.action, "cosine": cosine, "new_evidence": len(fresh)},
        at=ctx.now,
    )  # fmt: skip
    return {
        "id": skill.id,
        "scope_key": cand.scope_key,
        "properties": json.dumps(props, sort_keys=True),
        "evidence_ids": fresh,
        "audit": audit_params(entry),
    }
