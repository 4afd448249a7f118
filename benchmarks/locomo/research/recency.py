"""Issue 14, direction 1: recency definitions that do not bury relevant old evidence.

Re-ranks the memories the product scored (``research/capture.py``'s pickle) under each
definition of the final score, exactly as ``scoring.final_score`` would, and reports every
group on the dev split, per conversation, and leave one conversation out.

    PYTHONPATH=src:. python -m benchmarks.locomo.research.recency --parts /tmp/assoc/parts.pkl
"""

from __future__ import annotations

import argparse
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.locomo.metrics import evaluate
from hippograph.retrieval.recall_state import rank_depth
from hippograph.retrieval.timeparse import asks_about_recent

DAY = 86_400.0
DEPTH = 50
GROUPS = ["overall", "multi-hop", "open-domain", "single-hop", "temporal", "adversarial"]

Item = dict[str, Any]  # one scored memory: turn, at, and its ScoreParts fields
Ctx = dict[str, Any]  # per conversation: now, times (sorted), newest, span
Score = Callable[[Item, str, Ctx], float]


def combine(rel: float, rec: float, freq: float, prox: float, w: tuple[float, float, float, float]) -> float:
    wr, wc, wf, wp = w
    others = wc + wf + wp
    if others <= 0:
        return rel
    mix = (wc * rec + wf * freq + wp * prox) / others
    return rel * (wr + (1 - wr) * mix)


REF = (0.4, 0.2, 0.2, 0.2)
NO_REC = (0.6, 0.0, 0.2, 0.2)


def multipliers(it: Item) -> float:
    return float(it["scope_weight"] * it["time_match"] * it["currency"])


def half_life_recency(age: float, days: float) -> float:
    return float(2.0 ** (-max(0.0, age) / (days * DAY)))


def s_reference(days: float = 7.0, ref_newest: bool = False) -> Score:
    """The reference: 2^(−age / half-life), age from `now` (or from the scope's newest memory)."""

    def f(it: Item, q: str, c: Ctx) -> float:
        origin = c["newest"] if ref_newest else c["now"]
        rec = half_life_recency(origin - it["at"], days)
        return combine(it["relevance"], rec, it["frequency"], it["proximity"], REF) * multipliers(it)

    return f


def s_span(fraction: float) -> Score:
    """Half-life = a fraction of the scope's own time span (oldest → newest memory), ≥ 7 days."""

    def f(it: Item, q: str, c: Ctx) -> float:
        days = max(7.0, fraction * c["span"] / DAY)
        rec = half_life_recency(c["newest"] - it["at"], days)
        return combine(it["relevance"], rec, it["frequency"], it["proximity"], REF) * multipliers(it)

    return f


def s_weights(w: tuple[float, float, float, float]) -> Score:
    def f(it: Item, q: str, c: Ctx) -> float:
        rec = half_life_recency(c["now"] - it["at"], 7.0)
        return combine(it["relevance"], rec, it["frequency"], it["proximity"], w) * multipliers(it)

    return f


def s_tiebreak(eps: float) -> Score:
    """Recency as a bounded tie-break: × (1 + eps · recency) on top of the no-recency weights."""

    def f(it: Item, q: str, c: Ctx) -> float:
        rec = half_life_recency(c["now"] - it["at"], 7.0)
        return combine(it["relevance"], 0, it["frequency"], it["proximity"], NO_REC) * (1 + eps * rec) * multipliers(it)

    return f


def s_when_asked() -> Score:
    """Recency weighs (reference weights, 7 days) only when the query asks about the recent."""

    def f(it: Item, q: str, c: Ctx) -> float:
        if asks_about_recent(q):
            return s_reference()(it, q, c)
        return combine(it["relevance"], 0, it["frequency"], it["proximity"], NO_REC) * multipliers(it)

    return f


def s_asked_else_tiebreak(eps: float) -> Score:
    """Reference recency when the query asks about the recent, else a tie-break × (1 + eps · rec)."""

    def f(it: Item, q: str, c: Ctx) -> float:
        if asks_about_recent(q):
            return s_reference()(it, q, c)
        return s_tiebreak(eps)(it, q, c)

    return f


def s_rank_recency(days: float = 7.0) -> Score:
    """Recency measured in memories, not days: rank of the memory among the scope's memories
    from the newest (a busy week and a quiet month weigh alike); half-life = `days` × the
    scope's memories per day."""

    def f(it: Item, q: str, c: Ctx) -> float:
        import bisect

        newer = len(c["times"]) - bisect.bisect_right(c["times"], it["at"])
        per_day = len(c["times"]) / max(1.0, c["span"] / DAY)
        rec = 2.0 ** (-newer / (days * per_day))
        return combine(it["relevance"], rec, it["frequency"], it["proximity"], REF) * multipliers(it)

    return f


VARIANTS: dict[str, Score] = {
    "reference (7 d from now) = default": s_reference(),
    "relevance only": s_weights((1.0, 0.0, 0.0, 0.0)),
    "no recency (0.6/0/0.2/0.2)": s_weights(NO_REC),
    "7 d from the scope's newest": s_reference(7.0, ref_newest=True),
    "half-life 30 d": s_reference(30.0),
    "half-life 90 d": s_reference(90.0),
    "half-life 365 d": s_reference(365.0),
    "half-life = span/2": s_span(0.5),
    "half-life = span": s_span(1.0),
    "half-life = 2 span": s_span(2.0),
    "tie-break ×(1+0.05·rec)": s_tiebreak(0.05),
    "tie-break ×(1+0.1·rec)": s_tiebreak(0.1),
    "tie-break ×(1+0.02·rec)": s_tiebreak(0.02),
    "recency only when asked (the product's asks_about_recent)": s_when_asked(),
    "weights 0.5/0.1/0.2/0.2": s_weights((0.5, 0.1, 0.2, 0.2)),
    "when asked, else tie-break 0.02": s_asked_else_tiebreak(0.02),
    "when asked, else tie-break 0.05": s_asked_else_tiebreak(0.05),
    "recency in memories, not days (7 d × memories/day)": s_rank_recency(),
}


def rank(items: list[Item], q: str, c: Ctx, score: Score) -> list[str]:
    top = sorted(items, key=lambda it: -it["relevance"])[: rank_depth(DEPTH)]
    return [it["turn"] for it in sorted(top, key=lambda it: -score(it, q, c))][:DEPTH]


def main(parts: Path) -> None:
    data = pickle.loads(parts.read_bytes())
    per: dict[str, dict[str, list[Any]]] = {}
    for name, score in VARIANTS.items():
        per[name] = {}
        for conv, d in data.items():
            c = {"now": d["now"], "times": d["times"], "newest": d["times"][-1], "span": d["times"][-1] - d["times"][0]}
            per[name][conv] = [(q, rank(items, q.question, c, score)) for q, items in d["questions"]]
    convs = list(data)
    print(
        "| variant | overall R@5 / R@10 | multi-hop R@10 / S@5 | open-domain R@10 | "
        + " | ".join(f"{c} o R@5/R@10, mh R@10" for c in convs)
        + " |"
    )
    print("|---|---|---|---|" + "---|" * len(convs))
    for name, by in per.items():
        r = evaluate([x for v in by.values() for x in v])
        cells = [
            f"{r['overall']['R@5']:.1f} / {r['overall']['R@10']:.1f}",
            f"{r['multi-hop']['R@10']:.1f} / {r['multi-hop']['S@5']:.1f}",
            f"{r['open-domain']['R@10']:.1f}" if "open-domain" in r else "—",
        ]
        for cv in convs:
            rc = evaluate(by[cv])
            cells.append(f"{rc['overall']['R@5']:.1f} / {rc['overall']['R@10']:.1f}, {rc['multi-hop']['R@10']:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    asked = sum(asks_about_recent(q.question) for d in data.values() for q, _ in d["questions"])
    print(f"questions with a recency word: {asked} of {sum(len(d['questions']) for d in data.values())}")
    for held in convs:
        others = [c for c in convs if c != held]

        def obj(n: str, others: list[str] = others) -> float:
            r = evaluate([x for c in others for x in per[n][c]])["overall"]
            return r["R@5"] + r["R@10"]

        best = max(per, key=obj)
        r = evaluate(per[best][held])
        print(
            f"LOCO: chosen on {'+'.join(others)}: {best!r} -> {held}: overall R@5/R@10 "
            f"{r['overall']['R@5']:.1f}/{r['overall']['R@10']:.1f}, multi-hop R@10 {r['multi-hop']['R@10']:.1f}"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", type=Path, default=Path("/tmp/assoc/parts.pkl"))
    main(ap.parse_args().parts)
