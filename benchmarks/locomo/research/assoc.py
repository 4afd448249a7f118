"""Issue 14 prototypes: associative structure for multi-hop / open-domain questions, in numpy.

Every method is the RECIPE (prototype.recipe, ≈ the product's relevance-only ranking) plus one
structural addition; each is reported on the dev split, per conversation, and leave one
conversation out. Run from the repo root:

    PYTHONPATH=src:. python -m benchmarks.locomo.research.assoc
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from benchmarks.locomo.dataset import load
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.research import prototype as P

Method = Callable[[P.Scope, P.Q], np.ndarray]
GROUPS = ["overall", "multi-hop", "open-domain", "single-hop", "temporal", "adversarial"]


def similar_links(sc: P.Scope, k: int, other_sessions: bool = True) -> np.ndarray:
    """n×n weights: each turn's k most similar turns (ctx embedding), in other sessions only."""
    e = sc.emb["ctx"]
    sim = e @ e.T
    np.fill_diagonal(sim, -np.inf)
    if other_sessions:
        sim[sc.session[:, None] == sc.session[None, :]] = -np.inf
    w = np.zeros_like(sim)
    idx = np.argsort(-sim, axis=1)[:, :k]
    rows = np.arange(len(sim))[:, None]
    w[rows, idx] = np.clip(sim[rows, idx], 0, 1)
    return np.maximum(w, w.T)


def speaker_links(sc: P.Scope, k: int) -> np.ndarray:
    """Like similar_links, but only between turns of the same speaker (entity-centred)."""
    e = sc.emb["ctx"]
    sim = e @ e.T
    np.fill_diagonal(sim, -np.inf)
    sim[sc.session[:, None] == sc.session[None, :]] = -np.inf
    sim[sc.speaker[:, None] != sc.speaker[None, :]] = -np.inf
    w = np.zeros_like(sim)
    idx = np.argsort(-sim, axis=1)[:, :k]
    rows = np.arange(len(sim))[:, None]
    w[rows, idx] = np.clip(sim[rows, idx], 0, 1)
    return np.maximum(w, w.T)


_links: dict[tuple[str, str, int], np.ndarray] = {}


def m_link_spread(base: Method, kind: str, k: int, decay: float, seeds: int) -> Method:
    """The top `seeds` turns pass decay × their activation × link weight to linked turns (max)."""

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        key = (sc.conv.conv_id, kind, k)
        if key not in _links:
            _links[key] = (similar_links if kind == "sim" else speaker_links)(sc, k)
        w = _links[key]
        a = base(sc, q)
        a = a - a.min()
        act = np.zeros_like(a)
        for i in np.argsort(-a, kind="stable")[:seeds]:
            act = np.maximum(act, decay * a[i] * w[i])
        return a + act

    return f


def m_session_quota(base: Method, per_session: int, depth: int = 10) -> Method:
    """Within the top `depth`, at most `per_session` turns of one session; the rest move down."""

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        s = base(sc, q)
        order = np.argsort(-s, kind="stable")
        seen: dict[str, int] = {}
        first, later = [], []
        for i in order:
            sess = sc.session[i]
            if len(first) < depth and seen.get(sess, 0) < per_session:
                first.append(i)
                seen[sess] = seen.get(sess, 0) + 1
            else:
                later.append(i)
        out = np.empty(len(s))
        out[np.array(first + later)] = -np.arange(len(s), dtype=float)
        return out

    return f


def memo(base: Method) -> Method:
    """The same method, computed once per question."""
    seen: dict[tuple[str, str], np.ndarray] = {}

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        key = (sc.conv.conv_id, q.text)
        if key not in seen:
            seen[key] = base(sc, q)
        return seen[key]

    return f


def report(methods: dict[str, Method], scopes: list[P.Scope]) -> None:
    per: dict[str, dict[str, list]] = {}
    for name, method in methods.items():
        per[name] = {}
        for sc in scopes:
            items = []
            for qq in sc.qs:
                order = np.argsort(-method(sc, qq), kind="stable")[:50]
                items.append((qq.q, [sc.ids[i] for i in order]))
            per[name][sc.conv.conv_id] = items
    head = " | ".join(f"{g} R@5/R@10/S@5" for g in GROUPS[:3])
    print(f"| method | {head} | conv-26 o/mh R@10 | conv-30 o/mh R@10 |")
    print("|---|" + "---|" * 5)
    for name, by in per.items():
        r = evaluate([x for v in by.values() for x in v])
        cells = [f"{r[g]['R@5']:.1f} / {r[g]['R@10']:.1f} / {r[g]['S@5']:.1f}" for g in GROUPS[:3]]
        convs = []
        for c in ("conv-26", "conv-30"):
            rc = evaluate(by[c])
            convs.append(f"{rc['overall']['R@10']:.1f} / {rc['multi-hop']['R@10']:.1f}")
        print(f"| {name} | " + " | ".join(cells + convs) + " |")
    for held, other in (("conv-30", "conv-26"), ("conv-26", "conv-30")):

        def obj(n: str, other: str = other) -> float:
            r = evaluate(per[n][other])
            return r["overall"]["R@5"] + r["overall"]["R@10"] + r["multi-hop"]["R@10"]

        best = max(per, key=obj)
        r = evaluate(per[best][held])
        print(
            f"LOCO: chosen on {other}: {best!r} -> on {held}: overall R@5/R@10 {r['overall']['R@5']:.1f}/"
            f"{r['overall']['R@10']:.1f}, multi-hop R@10 {r['multi-hop']['R@10']:.1f}, "
            f"S@5 {r['multi-hop']['S@5']:.1f}"
        )


def main() -> None:
    P.TEXTS = {k: P.TEXTS[k] for k in ("raw", "ctx", "winctx")}
    scopes = P.prepare(load())
    r = P.Recipe()
    base = memo(P.recipe(r))
    methods: dict[str, Method] = {"RECIPE": base, "RECIPE no keywords": P.recipe(replace(r, keyword_decay=0.0))}
    for kind in ("sim", "spk"):
        for k in (3, 5, 10):
            for decay in (0.25, 0.5):
                methods[f"+{kind} links k={k} decay={decay}"] = m_link_spread(base, kind, k, decay, 10)
    methods["session quota 2/top10"] = m_session_quota(base, 2)
    methods["session quota 3/top10"] = m_session_quota(base, 3)
    report(methods, scopes)


if __name__ == "__main__":
    main()
