"""Issue 14, session 4: speaker-centred recall for multi-hop questions, in numpy.

Profile of the misses (``--profile``): 123 of the 126 evidence turns of the dev split's multi-hop
questions were said by the participant the question names, and 74 of the 75 evidence turns the
RECIPE ranks below 10 are that person's own turns. So the methods here condition on the named
participant (the speaker cue, ``SPOKEN_BY``): the person's memories all become candidates and
are ranked by what the rest of the query asks. Every method is the RECIPE (≈ the product's
relevance-only ranking) plus one addition; dev split, per conversation, leave one out.

    PYTHONPATH=src:. python -m benchmarks.locomo.research.entity [--profile]
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import numpy as np

from benchmarks.locomo.dataset import load
from benchmarks.locomo.research import prototype as P
from benchmarks.locomo.research.assoc import memo, report
from benchmarks.locomo.research.concepts import AUX, LIST_Q

Method = P.Method


def rest_of_query(q: P.Q) -> str:
    """The query without the participants it names (and their possessive 's)."""
    text = q.text
    for name in q.speakers_named:
        text = re.sub(rf"\b{re.escape(name)}(?:['\u2019]s)?\b", " ", text)
    return re.sub(r"\s+", " ", text).strip()


_HEAD = re.compile(rf"^\s*(?:what|which)\s+((?:\S+\s+)?\S+s)\s+(?:{AUX})\b", re.I)


def head_phrase(q: P.Q) -> str | None:
    """The noun phrase a list question asks for ("What activities does …" → "activities")."""
    if not LIST_Q.search(q.text):
        return None
    m = _HEAD.search(q.text)
    return m.group(1) if m else None


_vec: dict[str, np.ndarray] = {}


def vectors(texts: list[str]) -> None:
    missing = sorted({t for t in texts if t not in _vec})
    if missing:
        for t, v in zip(missing, P.embed(missing), strict=True):
            _vec[t] = v


def zs(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """z-scores relative to the turns in ``mask`` (all when none)."""
    ref = x[mask] if mask.any() else x
    sd = ref.std()
    return (x - ref.mean()) / sd if sd > 0 else x * 0


@dataclass(frozen=True)
class Person:
    """What the named participant conditions."""

    pool: bool = False  # every turn of the person is a candidate
    boost: float = 1.0  # the RECIPE's speaker bonus (sd)
    rest_w: float = 0.0  # weight of cos(turn text, rest-of-query), z over the person's turns
    head_w: float = 0.0  # weight of cos(turn text, the list question's head noun), z over the person's turns, ≥ 0
    prf_w: float = 0.0  # second round: cos(turn, mean of the person's top-5) z over the person, × w
    spread_same: bool = False  # NEXT / session spreading only into the person's turns
    field: str = "raw"  # the turn embedding the rest / head / prf cosines use ("ctx" = the product's)
    rest_all: bool = False  # the rest-of-query channel for every turn, z over the scope
    after: bool = False  # rest / head added after spreading, to the person's candidates only (the product's place)
    z_pool: bool = False  # late evidence z-scored over every candidate (not only the person's)


def person_recipe(r: P.Recipe, p: Person) -> Method:
    """The RECIPE with the named participant's memories pooled and ranked by the rest of the query."""

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        n = len(sc.turns)
        ft = sc.bm25[r.fulltext_field].score(q.text)
        cos = sc.emb[r.vector_field] @ q.vec
        cand = np.zeros(n, dtype=bool)
        top_ft = np.argsort(-ft, kind="stable")[: r.candidates]
        cand[top_ft] = ft[top_ft] > 0
        cand[np.argsort(-cos, kind="stable")[: r.candidates]] = True
        s = P.zscore(ft) + P.zscore(cos)
        mine = np.zeros(n, dtype=bool)
        if len(q.speakers_named) == 1:
            mine = sc.speaker == q.speakers_named[0]
            s = s + p.boost * mine
            raw = sc.emb[p.field]
            if p.pool:
                cand |= mine
            if p.rest_w and not p.after:
                rest = rest_of_query(q)
                vectors([rest])
                if p.rest_all:
                    s = s + p.rest_w * P.zscore(raw @ _vec[rest])
                else:
                    s = s + p.rest_w * mine * zs(raw @ _vec[rest], mine)
            head = head_phrase(q) if p.head_w and not p.after else None
            if head:
                vectors([head])
                s = s + p.head_w * mine * np.maximum(zs(raw @ _vec[head], mine), 0)
            if p.prf_w:
                top = np.argsort(-np.where(cand & mine, s, -np.inf), kind="stable")[:5]
                centroid = raw[top].mean(axis=0)
                s = s + p.prf_w * mine * np.maximum(zs(raw @ centroid, mine), 0)
        s = np.where(cand, s, -np.inf)
        finite = np.isfinite(s)
        s0 = np.where(finite, s - s[finite].min(), 0.0)
        gate = mine if (p.spread_same and mine.any()) else np.ones(n, dtype=bool)
        nxt = (sc.adj_next * s0[None, :]).max(axis=1)
        a = s0 + r.next_decay * nxt * gate
        best = {sess: a[sc.session == sess].max() for sess in np.unique(sc.session)}
        a = a + r.session_decay * np.array([best[x] for x in sc.session]) * gate
        if r.keyword_decay > 0:
            M = P.keyword_matrix(sc)
            idf = np.log(1 + n / np.maximum(M.sum(axis=0), 1)) / np.log(1 + n)
            act = np.zeros(n)
            for i in np.argsort(-a, kind="stable")[: r.keyword_seeds]:
                shared = (M * (M[i] * idf)[None, :]).max(axis=1)
                shared[i] = 0
                act = np.maximum(act, r.keyword_decay * a[i] * shared)
            a = a + act
        if p.after and mine.any():
            a = a + late_person_evidence(sc, q, p, mine & cand, cand if p.z_pool else mine & cand)
        return a

    return f


def late_person_evidence(sc: P.Scope, q: P.Q, p: Person, mine: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """What the product adds after its spreading: the rest-of-query (and head-noun) cosine of the
    named person's candidates, z-scored over them, × weight (head: ≥ 0 only)."""
    emb = sc.emb[p.field]
    out = np.zeros(len(mine))
    if p.rest_w:
        rest = rest_of_query(q)
        vectors([rest])
        out += p.rest_w * mine * zs(emb @ _vec[rest], ref)
    head = head_phrase(q) if p.head_w else None
    if head:
        vectors([head])
        out += p.head_w * mine * np.maximum(zs(emb @ _vec[head], ref), 0)
    return out


def profile(scopes: list[P.Scope]) -> None:
    """Per multi-hop / open-domain question: each evidence turn's rank, cosine z and speaker."""
    base = P.recipe(P.Recipe())
    for sc in scopes:
        idx = {d: i for i, d in enumerate(sc.ids)}
        for qq in sc.qs:
            if qq.q.category not in (1, 3):
                continue
            s = base(sc, qq)
            rank = np.empty(len(s), int)
            rank[np.argsort(-s, kind="stable")] = np.arange(1, len(s) + 1)
            cos = sc.emb["ctx"] @ qq.vec
            zc = (cos - cos.mean()) / cos.std()
            print(f"\n## [{sc.conv.conv_id}] {qq.q.question}  named={qq.speakers_named}")
            for d in qq.q.evidence:
                if d in idx:
                    t = sc.turns[idx[d]]
                    star = "*" if t.speaker in qq.speakers_named else " "
                    print(
                        f"  r={rank[idx[d]]:3d} zc={zc[idx[d]]:+.2f} S{t.session} {t.speaker}{star}: "
                        + t.full_text[:120]
                    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    P.TEXTS = {k: P.TEXTS[k] for k in ("raw", "ctx", "winctx")}
    scopes = P.prepare(load())
    if args.profile:
        profile(scopes)
        return
    r = P.Recipe()
    methods: dict[str, Method] = {"RECIPE": memo(P.recipe(r)), "person recipe (= RECIPE)": person_recipe(r, Person())}
    grid = {
        "pool rest 1.0 head 0.5 (ctx emb)": Person(pool=True, rest_w=1.0, head_w=0.5, field="ctx"),
        "pool rest 1.0 (ctx emb)": Person(pool=True, rest_w=1.0, field="ctx"),
    }
    for w in (0.5, 1.0, 1.5):
        grid[f"late rest {w}"] = Person(rest_w=w, field="ctx", after=True)
        grid[f"late rest {w} head 0.5"] = Person(rest_w=w, head_w=0.5, field="ctx", after=True)
    grid["late rest 1.0 head 0.5, z over the pool"] = Person(
        rest_w=1.0, head_w=0.5, field="ctx", after=True, z_pool=True
    )
    grid["late rest 0.5 head 0.5, z over the pool"] = Person(
        rest_w=0.5, head_w=0.5, field="ctx", after=True, z_pool=True
    )
    grid["late head 0.5"] = Person(head_w=0.5, field="ctx", after=True)
    grid["late head 1.0"] = Person(head_w=1.0, field="ctx", after=True)
    for name, p in grid.items():
        methods[name] = memo(person_recipe(r, p))
    print(
        "list questions with a head phrase:",
        [(q.text, head_phrase(q)) for sc in scopes for q in sc.qs if head_phrase(q)],
    )
    report(methods, scopes)
    per_conv(methods, scopes)


def per_conv(methods: dict[str, Method], scopes: list[P.Scope]) -> None:
    """Per conversation R@5 / R@10 / multi-hop R@10 / open-domain R@10 of every method."""
    from benchmarks.locomo.metrics import evaluate

    print("\n| method | conv-26 R@5 / R@10 / mh R@10 / od R@10 | conv-30 R@5 / R@10 / mh R@10 |")
    print("|---|---|---|")
    for name, method in methods.items():
        cells = []
        for sc in scopes:
            r = evaluate([(q.q, [sc.ids[i] for i in np.argsort(-method(sc, q), kind="stable")[:50]]) for q in sc.qs])
            od = f" / {r['open-domain']['R@10']:.1f}" if "open-domain" in r else ""
            cells.append(f"{r['overall']['R@5']:.1f} / {r['overall']['R@10']:.1f} / {r['multi-hop']['R@10']:.1f}{od}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
