"""LoCoMo retrieval recall, as the paper defines it.

Turn-level recall@k = |evidence ∩ top-k dia_ids| / |evidence|. Session-level recall@k credits
an evidence turn when its session is among the top-k distinct sessions of the ranking.
Beside it, the figures turn-level retrieval papers report: any-evidence hit@k (H@k: 1 when at
least one evidence turn is in the top k) and all-evidence recall@k (A@k: 1 only when every
evidence turn is). Averaged per category and overall (every question, adversarial included).
A question with no evidence scores 1. Categories: 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, 5 adversarial (``dataset.CATEGORIES``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from benchmarks.locomo.dataset import CATEGORIES, Question, session_of

TURN_KS = (5, 10, 20, 25, 50)
SESSION_KS = (2, 5, 10)


def turn_recall(ranking: Sequence[str], evidence: Sequence[str], k: int) -> float:
    if not evidence:
        return 1.0
    top = set(ranking[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def hit(ranking: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """1 when any evidence turn is in the top ``k``."""
    if not evidence:
        return 1.0
    top = set(ranking[:k])
    return 1.0 if any(e in top for e in evidence) else 0.0


def all_found(ranking: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """1 when every evidence turn is in the top ``k``."""
    top = set(ranking[:k])
    return 1.0 if all(e in top for e in evidence) else 0.0


def top_sessions(ranking: Sequence[str], k: int) -> list[int]:
    seen: list[int] = []
    for dia_id in ranking:
        s = session_of(dia_id)
        if s not in seen:
            seen.append(s)
            if len(seen) == k:
                break
    return seen


def session_recall(ranking: Sequence[str], evidence: Sequence[str], k: int) -> float:
    if not evidence:
        return 1.0
    sessions = set(top_sessions(ranking, k))
    return sum(1 for e in evidence if session_of(e) in sessions) / len(evidence)


def evaluate(
    items: Iterable[tuple[Question, Sequence[str]]],
    turn_ks: Sequence[int] = TURN_KS,
    session_ks: Sequence[int] = SESSION_KS,
) -> dict[str, dict[str, float]]:
    """Mean recall (in %) per group: ``"overall"`` and each category name.

    Returns ``{group: {"n": count, "R@5": ..., "H@5": ..., "A@5": ..., "S@2": ...}}``.
    """
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for question, ranking in items:
        for group in ("overall", CATEGORIES.get(question.category, str(question.category))):
            row = sums[group]
            row["n"] += 1
            for k in turn_ks:
                row[f"R@{k}"] += turn_recall(ranking, question.evidence, k)
                row[f"H@{k}"] += hit(ranking, question.evidence, k)
                row[f"A@{k}"] += all_found(ranking, question.evidence, k)
            for k in session_ks:
                row[f"S@{k}"] += session_recall(ranking, question.evidence, k)
    result: dict[str, dict[str, float]] = {}
    for group, row in sums.items():
        n = row["n"]
        result[group] = {"n": n} | {key: 100.0 * value / n for key, value in row.items() if key != "n"}
    return result
