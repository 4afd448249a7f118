"""Phase 13 — semantic_merge: near-duplicate facts become one; the absorbed one is retracted."""

from __future__ import annotations

import json
import logging

from hippograph.consolidation.context import Counted, Counts, PhaseContext
from hippograph.consolidation.hooks import MergeJudge
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.consolidation.report import Phase
from hippograph.store.scores import cosine_from_index, index_from_cosine
from hippograph.store.transaction import Row

log = logging.getLogger(__name__)


class _Pair(Row):
    """Two near-duplicate facts (``a`` probed, ``b`` its neighbour) with what ranks them."""

    a: str
    b: str
    score: float
    """Cosine as the vector index scores it, (1 + cos) / 2."""
    a_scope: str | None = None
    b_scope: str | None = None
    a_importance: float | None = None
    b_importance: float | None = None
    a_seen: int | None = None
    b_seen: int | None = None
    a_created: float | None = None
    b_created: float | None = None
    a_key: str | None = None
    b_key: str | None = None
    a_text: str
    b_text: str


class _Candidates(Row):
    """The probed facts' neighbours, and where the next pass starts."""

    watermark_at: float | None = None
    watermark_id: str | None = None
    probed: int
    pairs: list[_Pair]


class _Merged(Counted):
    merged: int = 0
    repointed: int = 0


def _survivor_first(pair: _Pair) -> tuple[str, str]:
    """(survivor, absorbed): the shallower scope's fact first — a merge never hides an
    ancestor's fact (which every sibling of the deeper scope sees) behind one scope's
    duplicate; within one scope the more important, then more used, then older, then
    smaller id."""

    def rank(
        node_id: str, scope: str | None, importance: float | None, seen: int | None, created: float | None
    ) -> tuple[int, float, int, float, str]:
        return ((scope or "").count("/"), -(importance or 5.0), -(seen or 0), created or 0.0, node_id)

    a = rank(pair.a, pair.a_scope, pair.a_importance, pair.a_seen, pair.a_created)
    b = rank(pair.b, pair.b_scope, pair.b_importance, pair.b_seen, pair.b_created)
    return (pair.a, pair.b) if a <= b else (pair.b, pair.a)


def _choose(pairs: list[_Pair], limit: int) -> tuple[list[_Pair], int]:
    """Best-scored disjoint pairs (a fact takes part in one merge per run), and how many
    distinct pairs were left for a later run."""
    best: dict[tuple[str, str], _Pair] = {}
    for pair in pairs:
        key = (min(pair.a, pair.b), max(pair.a, pair.b))
        if key not in best or pair.score > best[key].score:
            best[key] = pair
    chosen: list[_Pair] = []
    used: set[str] = set()
    for key, pair in sorted(best.items(), key=lambda kv: (-kv[1].score, kv[0])):
        if used.isdisjoint(key):
            chosen.append(pair)
            used.update(key)
        if len(chosen) == limit:
            break
    return chosen, len(best) - len(chosen)


async def _judged(ctx: PhaseContext, pair: _Pair) -> bool | None:
    """The judge's verdict (True without a judge); None when the judge failed."""
    if not isinstance(ctx.model, MergeJudge):
        return True
    try:
        return bool(await ctx.model.same_fact(pair.a_text, pair.b_text))
    except Exception:  # a model failure keeps the facts apart, it never stops the sleep
        log.warning("merge judge failed; pair left unmerged", exc_info=True)
        return None


async def semantic_merge(ctx: PhaseContext) -> Counts:
    """Facts written since the last pass ask the vector index for neighbours with cosine ≥ 0.90;
    the best ≤ 10 disjoint pairs (confirmed by the model's judge when there is one) merge:
    the absorbed fact is soft-retracted (``merged_into``), its edges move to the survivor. A
    pair whose absorbed fact would be a keyed version is left as it is (``kept_versions``)."""
    c = ctx.config
    rows = await ctx.read(
        Q.GET_MERGE_CANDIDATES,
        _Candidates,
        since_at=float(ctx.state.get("merge_watermark_at", -1.0e18)),
        since_id=str(ctx.state.get("merge_watermark_id", "")),
        max_probes=c.merge_max_probes,
        k=c.merge_candidates_k,
        min_score=index_from_cosine(c.merge_min_cosine),
        vector_index=ctx.conn.capabilities.vector_index,
    )
    if not rows:
        return {"probed": 0, "candidates": 0, "merged": 0, "repointed": 0}
    found = rows[0]
    chosen, left = _choose(found.pairs, c.merge_max_pairs)
    writes, rejected, kept, failed = [], 0, 0, 0
    for pair in chosen:
        survivor, absorbed = _survivor_first(pair)
        if (pair.a_key if absorbed == pair.a else pair.b_key) is not None:
            kept += 1  # a version of a keyed fact is history: superseded, never merged away
            continue
        verdict = await _judged(ctx, pair)
        if not verdict:
            rejected += verdict is False
            failed += verdict is None
            continue
        cosine = round(cosine_from_index(pair.score), 4)
        retraction = {
            "phase": Phase.SEMANTIC_MERGE.value,
            "rule": f"cosine>={c.merge_min_cosine:.2f}",
            "reason": f"near-duplicate of {survivor} (cosine {cosine})",
            "merged_into": survivor,
            "cosine": cosine,
        }
        writes.append(
            {
                "survivor": survivor,
                "absorbed": absorbed,
                "retraction": json.dumps(retraction, sort_keys=True),
            }
        )
    merged = (await ctx.batch(Q.MERGE_FACTS, _Merged, rows=writes) if writes else _Merged()).counts()
    if not left:  # pairs left over (the cap, or a fact in two pairs) are probed again next run
        await ctx.remember(merge_watermark_at=found.watermark_at, merge_watermark_id=found.watermark_id)
    counts = {"probed": found.probed, "candidates": len(chosen) + left, **merged}
    if isinstance(ctx.model, MergeJudge):
        counts["judged_apart"] = rejected
        if failed:
            counts["model_failed"] = failed
    if kept:
        counts["kept_versions"] = kept
    return counts
