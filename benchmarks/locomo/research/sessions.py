"""Issue 14, session 6: sessions as retrieval units, on the product's own ranking.

Multi-hop evidence is spread over 3–6 sessions and each evidence turn shares few words with the
question, but a whole session (or the named person's part of it) may match the question as a
document where no single turn does. Here each session of the scope is scored as a document —
BM25 over its concatenated turn texts, the cosine of the query to the mean of its turns' MiniLM
vectors, their z-sum, or the cosine to phase 10's extractive summary of the session
(``consolidation.hooks.extractive_summary``, as ``fold_episodes`` would write it had its chunk
been the session) — with the query's named participants taken out (``entity.rest_of_query``).
The session scores are z-scored over the scope's sessions (positive side; optionally only the
best 3 kept), and each captured memory gets its session's score, z-scored over the captured
memories, in relevance units (× w × sd of the relevances), then re-ranked exactly as
``scoring.final_score`` ranks (``hypernyms_product.rerank``). That differs from the product's
session spreading, which lifts the members of the sessions of the best *hits*: here the session
is ranked against the query on its own text. It re-orders the product's candidates (its top
``rank_depth(50)`` = 150) and cannot add new ones. ``--novel``: only the sessions the product's
own top 5 miss are lifted. ``--coverage``: the session rankings' own S@k and the ceiling of the
lift with the true evidence sessions.

    D=../shared/data/locomo/locomo-dev.json
    PYTHONPATH=src:. python -m benchmarks.locomo.research.capture --data $D --out /tmp/hsess/parts.pkl
    PYTHONPATH=src:. python -m benchmarks.locomo.research.capture --data $D --out /tmp/hsess/parts_topic.pkl --topic
    PYTHONPATH=src:. python -m benchmarks.locomo.research.sessions \
        --parts /tmp/hsess/parts.pkl --topic-parts /tmp/hsess/parts_topic.pkl [--novel | --coverage]
"""

from __future__ import annotations

import argparse
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.locomo.dataset import CATEGORIES, load, session_of
from benchmarks.locomo.metrics import evaluate, top_sessions
from benchmarks.locomo.research import prototype as P
from benchmarks.locomo.research.concepts import LIST_Q
from benchmarks.locomo.research.entity import _vec as VEC
from benchmarks.locomo.research.entity import rest_of_query, vectors
from benchmarks.locomo.research.hypernyms import zpos
from benchmarks.locomo.research.lucene import BM25Index
from benchmarks.locomo.research.recency import DEPTH, s_when_asked
from hippograph.consolidation.config import ConsolidationConfig
from hippograph.consolidation.hooks import extractive_summary

DOCS = ("all bm25", "all cos", "all fuse", "person bm25", "person cos", "person fuse", "summary cos")
GROUPS = ("overall", "multi-hop", "open-domain", "adversarial")


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(n > 0, n, 1)


class SessionDocs:
    """One scope's sessions as documents: the whole session, each participant's part of it."""

    def __init__(self, sc: P.Scope) -> None:
        self.sessions = sorted({t.session for t in sc.turns})
        self.col = {s: j for j, s in enumerate(self.sessions)}
        raw = _unit(sc.emb["raw"])
        by = lambda keep: [[i for i, t in enumerate(sc.turns) if t.session == s and keep(t)] for s in self.sessions]  # noqa: E731
        members = by(lambda t: True)
        self.bm25 = {"all": BM25Index([" ".join(sc.turns[i].full_text for i in m) for m in members])}
        self.mean = {"all": _unit(np.stack([raw[m].mean(0) for m in members]))}
        self.has = {"all": np.ones(len(members), dtype=bool)}
        for who in sc.conv.speakers:
            mine = by(lambda t, who=who: t.speaker == who)
            self.bm25[who] = BM25Index([" ".join(sc.turns[i].full_text for i in m) for m in mine])
            self.mean[who] = _unit(np.stack([raw[m].mean(0) if m else np.zeros(raw.shape[1]) for m in mine]))
            self.has[who] = np.array([bool(m) for m in mine])
        c = ConsolidationConfig()
        summaries = [
            extractive_summary(
                [sc.turns[i].full_text for i in m],
                [sc.turns[i].date.timestamp() for i in m],
                line_chars=c.summary_line_chars,
                max_chars=c.summary_max_chars,
            )
            for m in members
        ]
        self.summary = _unit(P.embed(summaries))

    def scores(self, sc: P.Scope, q: P.Q, doc: str) -> np.ndarray:
        """Per session: z over the scope's sessions of the document's match to the query."""
        rest = rest_of_query(q) or q.text
        vectors([rest])
        qv = _unit(VEC[rest])
        part, kind = doc.split()
        who = "all"
        if part == "person" and len(q.speakers_named) == 1:
            who = q.speakers_named[0]
        has = self.has[who]

        def z(x: np.ndarray) -> np.ndarray:
            r = x[has]
            sd = r.std()
            return np.where(has, (x - r.mean()) / sd, 0.0) if sd > 0 else x * 0

        if part == "summary":
            return z(self.summary @ qv)
        bm, cos = z(self.bm25[who].score(rest)), z(self.mean[who] @ qv)
        return {"bm25": bm, "cos": cos, "fuse": bm + cos}[kind]


def session_evidence(sc: P.Scope, docs: SessionDocs, q: P.Q, doc: str, top: int | None) -> np.ndarray:
    s = np.maximum(docs.scores(sc, q, doc), 0)
    if top is not None:
        keep = np.zeros(len(s), dtype=bool)
        keep[np.argsort(-s, kind="stable")[:top]] = True
        s = s * keep
    return s


Evidence = Callable[[P.Scope, SessionDocs, P.Q], np.ndarray]  # per session of the scope


def rerank(
    data: dict[str, Any], scopes: dict[str, tuple[P.Scope, SessionDocs]], evidence: Evidence | None, w: float,
    person_only: bool, list_only: bool = False, novel: bool = False,
) -> dict[str, list[Any]]:  # fmt: skip
    """``novel``: only the sessions the product's own top 5 sessions miss are lifted (a session
    channel that adds sessions rather than reinforcing the ones the hits already hold)."""
    score = s_when_asked()
    out: dict[str, list[Any]] = {}
    for conv_id, d in data.items():
        sc, docs = scopes[conv_id]
        index = {t.dia_id: i for i, t in enumerate(sc.turns)}
        qs = {qq.q.question: qq for qq in sc.qs}
        ctx = {"now": d["now"], "times": d["times"], "newest": d["times"][-1], "span": d["times"][-1] - d["times"][0]}
        rows = []
        for q, items in d["questions"]:
            items = [dict(it) for it in items]
            qq = qs[q.question]
            applies = not list_only or bool(LIST_Q.search(q.question))
            if evidence is not None and w > 0 and items and applies:
                per_session = evidence(sc, docs, qq)
                if novel:
                    base = sorted(items, key=lambda it: -score(it, q.question, ctx))
                    covered = set(top_sessions([it["turn"] for it in base], 5))
                    per_session = per_session * np.array([x not in covered for x in docs.sessions])
                turns = [sc.turns[index[it["turn"]]] for it in items]
                c = np.array([per_session[docs.col[t.session]] for t in turns])
                if person_only:
                    named = qq.speakers_named
                    c = c * np.array([len(named) == 1 and t.speaker == named[0] for t in turns])
                if c.max() > 0:
                    rel = np.array([it["relevance"] for it in items])
                    new = rel + w * zpos(c) * rel.std()
                    new = new / new.max()
                    for it, v in zip(items, new, strict=True):
                        it["relevance"] = float(v)
            ranked = sorted(items, key=lambda it: -score(it, q.question, ctx))
            rows.append((q, [it["turn"] for it in ranked][:DEPTH]))
        out[conv_id] = rows
    return out


def coverage(scopes: dict[str, tuple[P.Scope, SessionDocs]], data: dict[str, Any]) -> None:
    """The session rankings on their own: share of evidence turns whose session is among the top
    k sessions (the S@k of that ranking) — of each document score, and of its reciprocal-rank
    fusion (k = 60, the usual constant) with the product's own session order (sessions by their
    best member in the product's ranking) — and, of the multi-hop evidence turns whose session
    the product's top 5 sessions miss, how many the document ranking's top 5 holds."""
    product = rerank(data, scopes, None, 0.0, False)
    head = " | ".join(f"{g} S@2 / S@5" for g in GROUPS)
    print(f"| session ranking | {head} | mh missed by the product, in its top 5 |")
    print("|---|" + "---|" * (len(GROUPS) + 1))
    r = evaluate([x for v in product.values() for x in v])
    cells = [f"{r[g]['S@2']:.1f} / {r[g]['S@5']:.1f}" for g in GROUPS]
    print("| product (its ranking's top sessions) | " + " | ".join(cells) + " | – |")
    for doc in DOCS:
        for fused in (False, True):
            hits: dict[str, dict[int, list[float]]] = {g: {2: [], 5: []} for g in GROUPS}
            rescued: list[bool] = []
            for conv_id, (sc, docs) in scopes.items():
                ranking = {q.question: turns for q, turns in product[conv_id]}
                for qq in sc.qs:
                    ev = [session_of(e) for e in qq.q.evidence]
                    if not ev:
                        continue
                    mine = top_sessions(ranking[qq.q.question], len(docs.sessions))
                    s = docs.scores(sc, qq, doc)
                    if fused:
                        prank = np.array([mine.index(x) if x in mine else len(mine) for x in docs.sessions])
                        drank = np.empty(len(s))
                        drank[np.argsort(-s, kind="stable")] = np.arange(len(s))
                        s = 1 / (60 + prank) + 1 / (60 + drank)
                    order = [docs.sessions[j] for j in np.argsort(-s, kind="stable")]
                    for g in ("overall", CATEGORIES.get(qq.q.category)):
                        if g in hits:
                            for k in (2, 5):
                                hits[g][k].append(float(np.mean([e in order[:k] for e in ev])))
                    if qq.q.category == 1:
                        rescued += [e in order[:5] for e in ev if e not in mine[:5]]
            cells = [f"{100 * np.mean(hits[g][2]):.1f} / {100 * np.mean(hits[g][5]):.1f}" for g in GROUPS]
            name = f"{doc}{' ⊕ product (RRF)' if fused else ''}"
            print(f"| {name} | " + " | ".join(cells) + f" | {sum(rescued)} of {len(rescued)} |")


def oracle(scopes: dict[str, tuple[P.Scope, SessionDocs]], data: dict[str, Any]) -> None:
    """What the lift could do with a perfect session ranking (the question's evidence sessions):
    the ceiling of this re-ranking, not a method."""

    def ev(sc: P.Scope, docs: SessionDocs, q: P.Q) -> np.ndarray:
        e = {session_of(x) for x in q.q.evidence}
        return np.array([1.0 if s in e else 0.0 for s in docs.sessions])

    per = {"product": rerank(data, scopes, None, 0.0, False)}
    for person_only in (False, True):
        for w in (0.25, 0.5, 1.0):
            per[f"oracle sessions{' person-only' if person_only else ''} w={w}"] = rerank(
                data, scopes, ev, w, person_only
            )
    print_table(per)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", type=Path, default=Path("/tmp/hsess/parts.pkl"))
    ap.add_argument("--topic-parts", type=Path, default=None)
    ap.add_argument("--novel", action="store_true", help="only the novel-session families")
    ap.add_argument("--coverage", action="store_true", help="the session rankings' own S@k, and the oracle ceiling")
    a = ap.parse_args()
    scopes = {sc.conv.conv_id: (sc, SessionDocs(sc)) for sc in P.prepare(load())}
    captures = {"product": pickle.loads(a.parts.read_bytes())}
    if a.coverage:
        coverage(scopes, captures["product"])
        oracle(scopes, captures["product"])
        return
    if a.topic_parts:
        captures["product + topic"] = pickle.loads(a.topic_parts.read_bytes())
    per: dict[str, dict[str, list[Any]]] = {}
    families: dict[str, tuple[str, list[str]]] = {}
    for cname, data in captures.items():
        per[cname] = rerank(data, scopes, None, 0.0, False)
        grid = (
            [(po, False, True, (None, 1, 3)) for po in (False, True)]
            if a.novel
            else [(po, lo, False, (None, 3)) for po, lo in ((False, False), (True, False), (True, True))]
        )
        for person_only, list_only, novel, tops in grid:
            fam = (
                f"{cname} + {'novel ' if novel else ''}sessions{' person-only' if person_only else ''}"
                f"{' list-questions' if list_only else ''}"
            )
            names = []
            for doc in DOCS:
                for top in tops:
                    for w in (0.25, 0.5, 1.0):
                        name = f"{fam} {doc}{'' if top is None else f' top{top}'} w={w}"

                        def ev(
                            sc: P.Scope, docs: SessionDocs, q: P.Q, doc: str = doc, top: int | None = top
                        ) -> np.ndarray:
                            return session_evidence(sc, docs, q, doc, top)

                        per[name] = rerank(data, scopes, ev, w, person_only, list_only, novel)
                        names.append(name)
            families[fam] = (cname, names)
    print_table(per)
    print_loco(per, families)


def _cells(r: dict[str, dict[str, float]]) -> list[str]:
    return [f"{r[g]['R@5']:.1f} / {r[g]['R@10']:.1f} / {r[g]['S@5']:.1f}" for g in GROUPS]


def print_table(per: dict[str, dict[str, list[Any]]]) -> None:
    head = " | ".join(f"{g} R@5 / R@10 / S@5" for g in GROUPS)
    print(f"| method | {head} | conv-26 R@5 / R@10 / mh R@10 / mh S@5 | conv-30 R@5 / R@10 / mh R@10 / mh S@5 |")
    print("|---|" + "---|" * (len(GROUPS) + 2))
    for name, by in per.items():
        cells = _cells(evaluate([x for v in by.values() for x in v]))
        for conv in ("conv-26", "conv-30"):
            rc = evaluate(by[conv])
            o, mh = rc["overall"], rc["multi-hop"]
            cells.append(f"{o['R@5']:.1f} / {o['R@10']:.1f} / {mh['R@10']:.1f} / {mh['S@5']:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def print_loco(per: dict[str, dict[str, list[Any]]], families: dict[str, tuple[str, list[str]]]) -> None:
    """Inside each family (its baseline, w = 0, included): document, cut and weight chosen on one
    conversation by overall R@5 + R@10 + multi-hop R@10, measured on the other."""
    head = " | ".join(f"{g} R@5 / R@10 / S@5" for g in GROUPS)
    print(f"\n| family | tuned on → held out | chosen | {head} | baseline there: {head} |")
    print("|---|---|---|" + "---|" * (2 * len(GROUPS)))
    for fam, (baseline, names) in families.items():
        for tune, held in (("conv-26", "conv-30"), ("conv-30", "conv-26")):

            def obj(n: str, tune: str = tune) -> float:
                r = evaluate(per[n][tune])
                return r["overall"]["R@5"] + r["overall"]["R@10"] + r["multi-hop"]["R@10"]

            best = max([baseline, *names], key=obj)
            chosen = "none (w = 0)" if best == baseline else best.removeprefix(fam).strip()
            r, b = evaluate(per[best][held]), evaluate(per[baseline][held])
            if "open-domain" not in r:  # conv-30 has no open-domain question
                r["open-domain"] = b["open-domain"] = {"R@5": float("nan"), "R@10": float("nan"), "S@5": float("nan")}
            print(f"| {fam} | {tune} → {held} | {chosen} | " + " | ".join(_cells(r) + _cells(b)) + " |")


if __name__ == "__main__":
    main()
