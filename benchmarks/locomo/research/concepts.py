"""Issue 14, direction 2: a concept layer without a language model, in numpy.

A query word that names a category ("activities", "instruments", "pets") shares no word with
the turns that are its instances ("pottery", "clarinet", "Luna the dog"). Here each scope's
cue vocabulary (the content words of its turns) is embedded word by word with the same MiniLM
the product uses, and a query word reaches the words that stand out as similar to it: cosine
z-scored over the scope's vocabulary ("standard deviations above the typical word of this
scope", the same reading the recall's channels have), at least ``z_min``. A turn's concept
evidence is the best such member it contains, times the member's rarity (as cue spreading
weighs it). Variants add it as a third channel (z-scored over the scope, weight ``w``) or as
spreading from the query (no seed needed).

Also direction 3, list questions ("What activities / books / which … has X …", plural
category word after what/which): a session-diverse re-rank only for them.

    PYTHONPATH=src:. python -m benchmarks.locomo.research.concepts
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from benchmarks.locomo.dataset import load
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.research import prototype as P
from benchmarks.locomo.research.assoc import Method, memo, report
from benchmarks.locomo.research.lucene import analyze

_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]+")
# Question words carry no concept (the same function-word list the fulltext cleanup uses).
QUESTION_WORDS = P.QUERY_STOP | frozenset("likely enjoy kind kinds type types some many much".split())


@dataclass
class Vocab:
    words: list[str]
    vecs: np.ndarray  # words x 384, normalised
    turn_has: np.ndarray  # turns x words, 0/1
    idf: np.ndarray  # words, in (0, 1]


_vocab: dict[str, Vocab] = {}


def surface_words(text: str) -> set[str]:
    """Lower-cased content words of ≥ 4 letters that Lucene's analyser keeps (not stop words)."""
    return {w.lower() for w in _WORD.findall(text) if len(w) >= 4 and analyze(w)}


def vocab(sc: P.Scope) -> Vocab:
    key = sc.conv.conv_id
    if key not in _vocab:
        per_turn = [surface_words(t.full_text) for t in sc.turns]
        words = sorted(set().union(*per_turn))
        col = {w: j for j, w in enumerate(words)}
        has = np.zeros((len(per_turn), len(words)), dtype=np.float32)
        for i, ws in enumerate(per_turn):
            for w in ws:
                has[i, col[w]] = 1.0
        n = len(per_turn)
        idf = np.log(1 + n / np.maximum(has.sum(axis=0), 1)) / np.log(1 + n)
        _vocab[key] = Vocab(words, P.embed(words), has, idf)
    return _vocab[key]


def query_words(sc: P.Scope, text: str) -> list[str]:
    names = {s.lower() for s in sc.conv.speakers}
    return sorted({w.lower() for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in QUESTION_WORDS | names})


_qvec: dict[str, np.ndarray] = {}


def concept_evidence(sc: P.Scope, text: str, z_min: float, same_stem: bool = False) -> np.ndarray:
    """Per turn: max over query words and member words it contains of z(word) × idf(member)."""
    v = vocab(sc)
    words = query_words(sc, text)
    if not words:
        return np.zeros(len(sc.turns))
    missing = [w for w in words if w not in _qvec]
    if missing:
        for w, vec in zip(missing, P.embed(missing), strict=True):
            _qvec[w] = vec
    out = np.zeros(len(sc.turns))
    for w in words:
        sim = v.vecs @ _qvec[w]
        z = (sim - sim.mean()) / sim.std()
        stem = analyze(w)
        if not same_stem and stem:  # the word itself is the fulltext channel's job
            z[[j for j, x in enumerate(v.words) if analyze(x) == stem]] = 0
        cols = np.nonzero(z >= z_min)[0]
        if len(cols):
            member = z[cols] * v.idf[cols]
            out = np.maximum(out, (v.turn_has[:, cols] * member[None, :]).max(axis=1))
    return out


_evidence: dict[tuple[str, str, float], np.ndarray] = {}


def concept_evidence_cached(sc: P.Scope, text: str, z_min: float) -> np.ndarray:
    key = (sc.conv.conv_id, text, z_min)
    if key not in _evidence:
        _evidence[key] = concept_evidence(sc, text, z_min)
    return _evidence[key]


def m_concept_channel(base: Method, z_min: float, weight: float) -> Method:
    """Concept evidence z-scored over the scope and added (× weight) before the recipe's spreading
    would see it — approximated by adding to the recipe's final activation, scaled by its spread."""

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        a = base(sc, q)
        c = concept_evidence_cached(sc, q.text, z_min)
        if c.max() <= 0:
            return a
        zc = (c - c.mean()) / c.std()
        return a + weight * np.maximum(zc, 0)

    return f


def m_concept_spread(base: Method, z_min: float, decay: float) -> Method:
    """Spreading from the query's concepts: a turn containing a member gets decay × the best
    activation of the recall × its concept evidence relative to the best (two hops: query word →
    concept → turn)."""

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        a = base(sc, q)
        a = a - a.min()
        c = concept_evidence_cached(sc, q.text, z_min)
        if c.max() <= 0:
            return a
        return a + decay * a.max() * c / c.max()

    return f


# "What/Which [adjective] <plural noun> has/does/did/are … ": a plural noun right after the
# question word, followed by an auxiliary (grammar, not any question's wording).
AUX = "has|have|had|does|do|did|are|were|is|was|can|could|would|will"
LIST_Q = re.compile(rf"^\s*(?:what|which)\s+(?:\S+\s+)?(?!(?:{AUX}|this|its)\b)\S+s\s+(?:{AUX})\b", re.I)


def m_list_diverse(base: Method, decay: float) -> Method:
    """Session-diverse re-rank (prototype.m_diversify) only for list questions."""
    div = P.m_diversify(base, decay)

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        return div(sc, q) if LIST_Q.search(q.text) else base(sc, q)

    return f


def main() -> None:
    P.TEXTS = {k: P.TEXTS[k] for k in ("raw", "ctx", "winctx")}
    scopes = P.prepare(load())
    base = memo(P.recipe(P.Recipe()))
    methods: dict[str, Method] = {"RECIPE": base}
    for z in (3.0, 4.0, 5.0):
        for w in (0.25, 0.5, 1.0):
            methods[f"+concept channel z≥{z} w={w}"] = m_concept_channel(base, z, w)
        for d in (0.125, 0.25):
            methods[f"+concept spread z≥{z} decay={d}"] = m_concept_spread(base, z, d)
    for d in (0.5, 0.7, 0.9):
        methods[f"list questions: session-diverse {d}"] = m_list_diverse(base, d)
    n_list = sum(bool(LIST_Q.search(q.text)) for sc in scopes for q in sc.qs)
    print(f"list questions detected: {n_list}")
    report(methods, scopes)
    print("\nper conversation, overall R@5 / R@10, multi-hop R@10:")
    for name, method in methods.items():
        cells = []
        for sc in scopes:
            items = [(q.q, [sc.ids[i] for i in np.argsort(-method(sc, q), kind="stable")[:50]]) for q in sc.qs]
            r = evaluate(items)
            o, mh = r["overall"], r["multi-hop"]
            cells.append(f"{sc.conv.conv_id} {o['R@5']:.1f} / {o['R@10']:.1f}, {mh['R@10']:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
