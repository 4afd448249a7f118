"""Phase 13 — semantic_merge: near-duplicate facts become one; the absorbed one is retracted."""

from __future__ import annotations

import json
import logging
from typing import Any

from hippograph.consolidation.context import Counts, PhaseContext
from hippograph.consolidation.hooks import MergeJudge
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.consolidation.report import Phase
from hippograph.store.scores import cosine_from_index, index_from_cosine

log = logging.getLogger(__name__)


def _survivor_first(pair: dict[str, Any]) -> tuple[str, str]:
    """(survivor, absorbed): the shallower scope's fact first — a merge never hides an
    ancestor's fact (which every sibling of the deeper scope sees) behind one scope's
    duplicate; within one scope the more important, then more used, then older, then
    smaller id."""

    def rank(side: str) -> tuple[int, float, int, float, str]:
        return (
            str(pair.get(f"{side}_scope") or "").count("/"),
            -float(pair[f"{side}_importance"] or 5.0),
            -int(pair[f"{side}_seen"] or 0),
            float(pair[f"{side}_created"] or 0.0),
            str(pair[side]),
        )

    return (pair["a"], pair["b"]) if rank("a") <= rank("b") else (pair["b"], pair["a"])


def _choose(pairs: list[dict[str, Any]], limit: int) -> tuple[list[dict[str, Any]], int]:
    """Best-scored disjoint pairs (a fact takes part in one merge per run), and how many
    distinct pairs were left for a later run."""
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for pair in pairs:
        key = (min(pair["a"], pair["b"]), max(pair["a"], pair["b"]))
        if key not in best or pair["score"] > best[key]["score"]:
            best[key] = pair
    chosen: list[dict[str, Any]] = []
    used: set[str] = set()
    for key, pair in sorted(best.items(), key=lambda kv: (-kv[1]["score"], kv[0])):
        if used.isdisjoint(key):
            chosen.append(pair)
            used.update(key)
        if len(chosen) == limit:
            break
    return chosen, len(best) - len(chosen)


async def _judged(ctx: PhaseContext, pair: dict[str, Any]) -> bool | None:
    """The judge's verdict (True without a judge); None when the judge failed."""
    if not isinstance(ctx.model, MergeJudge):
        return True
    try:
        return bool(await ctx.model.same_fact(pair["a_text"], pair["b_text"]))
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
        since_at=float(ctx.state.get("merge_watermark_at", -1.0e18)),
        since_id=str(ctx.state.get("merge_watermark_id", "")),
        max_probes=c.merge_max_probes,
        k=c.merge_candidates_k,
        min_score=index_from_cosine(c.merge_min_cosine),
    )
    if not rows:
        return {"probed": 0, "candidates": 0, "merged": 0, "repointed": 0}
    found = rows[0]
    chosen, left = _choose(list(found["pairs"]), c.merge_max_pairs)
    writes, rejected, kept, failed = [], 0, 0, 0
    for pair in chosen:
        survivor, absorbed = _survivor_first(pair)
        if pair["a_key" if absorbed == pair["a"] else "b_key"] is not None:
            kept += 1  # a version of a keyed fact is history: superseded, never merged away
            continue
        verdict = await _judged(ctx, pair)
        if not verdict:
            rejected += verdict is False
            failed += verdict is None
            continue
        cosine = round(cosine_from_index(float(pair["score"])), 4)
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
    merged = {"merged": 0, "repointed": 0}
    if writes:
        row = await ctx.batch(Q.MERGE_FACTS, rows=writes)
        merged = {
            "merged": int(row.get("merged") or 0),
            "repointed": int(row.get("repointed") or 0),
        }
    if not left:  # pairs left over (the cap, or a fact in two pairs) are probed again next run
        await ctx.remember(merge_watermark_at=found["watermark_at"], merge_watermark_id=found["watermark_id"])
    counts = {"probed": int(found["probed"]), "candidates": len(chosen) + left, **merged}
    if isinstance(ctx.model, MergeJudge):
        counts["judged_apart"] = rejected
        if failed:
            counts["model_failed"] = failed
    if kept:
        counts["kept_versions"] = kept
    return counts
