"""Retrieval-method prototypes over LoCoMo, in numpy, with the real MiniLM embeddings.

Run from the repo root:  python -m benchmarks.locomo.research.prototype [--loco]
Embeddings are cached under /tmp/locomo_cache (never in the repo).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from benchmarks.locomo.dataset import Conversation, Question, Turn, load
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.research.lucene import BM25Index, analyze

CACHE = "/tmp/locomo_cache"

_encoder = None


def embed(texts: Sequence[str]) -> np.ndarray:
    global _encoder
    key = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:16]
    path = f"{CACHE}/{key}.npy"
    try:
        return np.load(path)
    except FileNotFoundError:
        pass
    if _encoder is None:
        from hippograph.embeddings import SentenceTransformerEmbeddings

        _encoder = SentenceTransformerEmbeddings(batch_size=64)
    arr = np.asarray(_encoder.encode_sync(list(texts)), dtype=np.float32)
    np.save(path, arr)
    return arr


# ---------------------------------------------------------------- text variants per turn
def _date(t: Turn) -> str:
    return t.date.strftime("%-d %B %Y")


def txt_raw(turns: Sequence[Turn], i: int) -> str:
    return turns[i].full_text


def txt_spk(turns: Sequence[Turn], i: int) -> str:
    return f"{turns[i].speaker}: {turns[i].full_text}"


def txt_ctx(turns: Sequence[Turn], i: int) -> str:
    return f"{turns[i].speaker} on {_date(turns[i])}: {turns[i].full_text}"


def _window(turns: Sequence[Turn], i: int, before: int, after: int) -> str:
    t = turns[i]
    parts = []
    for j in range(i - before, i + after + 1):
        if 0 <= j < len(turns) and turns[j].session == t.session:
            parts.append(f"{turns[j].speaker}: {turns[j].full_text}")
    return " ".join(parts)


def txt_prev(turns: Sequence[Turn], i: int) -> str:
    """The turn with the one before it (what it answers)."""
    return _window(turns, i, 1, 0)


def txt_win(turns: Sequence[Turn], i: int) -> str:
    return _window(turns, i, 1, 1)


def txt_win2(turns: Sequence[Turn], i: int) -> str:
    return _window(turns, i, 2, 2)


def txt_prevctx(turns: Sequence[Turn], i: int) -> str:
    """Session date, then the turn before and the turn itself."""
    return f"{_date(turns[i])}. " + _window(turns, i, 1, 0)


def txt_winctx(turns: Sequence[Turn], i: int) -> str:
    return f"{_date(turns[i])}. " + _window(turns, i, 1, 1)


TEXTS: dict[str, Callable[[Sequence[Turn], int], str]] = {
    "raw": txt_raw,
    "spk": txt_spk,
    "ctx": txt_ctx,
    "prev": txt_prev,
    "win": txt_win,
    "win2": txt_win2,
    "prevctx": txt_prevctx,
    "winctx": txt_winctx,
}


# ---------------------------------------------------------------- entities (deterministic)
_CAP = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\b")
_COMMON_CAPS = frozenset(
    [
        "I",
        "Im",
        "Ive",
        "Id",
        "Ill",
        "Hey",
        "Hi",
        "Hello",
        "Wow",
        "Yeah",
        "Yes",
        "No",
        "Oh",
        "Thanks",
        "Thank",
        "That",
        "This",
        "The",
        "It",
        "Its",
        "What",
        "How",
        "Why",
        "When",
        "Where",
        "Who",
        "Which",
        "And",
        "But",
        "So",
        "Sure",
        "Absolutely",
        "Definitely",
        "Aw",
        "Awesome",
        "Great",
        "Cool",
        "Haha",
        "Lol",
        "My",
        "We",
        "You",
        "Your",
        "They",
        "He",
        "She",
        "Our",
        "Me",
        "Sounds",
        "Glad",
        "Good",
        "Nice",
        "Love",
        "Totally",
        "Ok",
        "Okay",
        "Congrats",
        "Congratulations",
        "Mel",
        "Btw",
        "By",
        "Have",
        "Has",
        "Do",
        "Did",
        "Just",
        "Also",
        "Well",
        "Right",
        "Really",
        "Not",
        "Can",
        "Could",
        "Would",
        "Should",
        "Let",
        "Lets",
        "Here",
        "There",
        "Is",
        "Are",
        "Was",
        "Were",
        "Hope",
        "Take",
        "Keep",
        "Been",
    ]
)


def entities(text: str) -> set[str]:
    """Capitalised words/phrases not at a sentence start, plus content-word stems.

    Two deterministic extractors: names (capitalised, mid-sentence) and nouns-ish content
    stems (Lucene-analysed tokens of length >= 4).
    """
    out = set()
    for m in _CAP.finditer(text):
        start = m.start()
        prefix = text[:start].rstrip()
        if not prefix or prefix[-1] in ".!?\"'(":
            continue
        name = m.group(1)
        if name.split()[0].replace("'", "") in _COMMON_CAPS:
            continue
        out.add(name.lower())
    return out


# ---------------------------------------------------------------- per-conversation state
@dataclass
class Scope:
    conv: Conversation
    turns: list[Turn]
    ids: list[str]
    bm25: dict[str, BM25Index] = field(default_factory=dict)
    emb: dict[str, np.ndarray] = field(default_factory=dict)
    session: np.ndarray = field(default_factory=lambda: np.zeros(0))
    speaker: np.ndarray = field(default_factory=lambda: np.zeros(0))
    adj_next: np.ndarray = field(default_factory=lambda: np.zeros(0))
    mention: np.ndarray = field(default_factory=lambda: np.zeros(0))  # turns x entities


def build_scope(conv: Conversation) -> Scope:
    turns = list(conv.turns)
    sc = Scope(conv=conv, turns=turns, ids=[t.dia_id for t in turns])
    for name, fn in TEXTS.items():
        docs = [fn(turns, i) for i in range(len(turns))]
        sc.bm25[name] = BM25Index(docs)
        sc.emb[name] = embed(docs)
    sc.session = np.array([t.session for t in turns])
    sc.speaker = np.array([t.speaker for t in turns])
    n = len(turns)
    adj = np.zeros((n, n), dtype=np.float32)
    for i in range(n - 1):
        if turns[i].session == turns[i + 1].session:
            adj[i, i + 1] = adj[i + 1, i] = 1.0
    sc.adj_next = adj
    ents = [entities(t.full_text) for t in turns]
    vocab = sorted(set().union(*ents))
    col = {e: j for j, e in enumerate(vocab)}
    m = np.zeros((n, len(vocab)), dtype=np.float32)
    for i, es in enumerate(ents):
        for e in es:
            m[i, col[e]] = 1.0
    sc.mention = m
    return sc


# ---------------------------------------------------------------- score utilities
def zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else x * 0


def maxnorm(x: np.ndarray) -> np.ndarray:
    m = x.max()
    return x / m if m > 0 else x * 0


def minmax(x: np.ndarray) -> np.ndarray:
    lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo) if hi > lo else x * 0


def rrf(*scores: np.ndarray, k: float = 60.0) -> np.ndarray:
    out = np.zeros_like(scores[0], dtype=float)
    for s in scores:
        ranks = np.empty(len(s))
        ranks[np.argsort(-s, kind="stable")] = np.arange(1, len(s) + 1)
        out += 1.0 / (k + ranks)
    return out


def topk_mask(x: np.ndarray, k: int) -> np.ndarray:
    m = np.zeros(len(x), dtype=bool)
    m[np.argsort(-x, kind="stable")[:k]] = True
    return m


@dataclass
class Q:
    """A question with its precomputed query signals in one scope."""

    q: Question
    text: str
    vec: np.ndarray
    speakers_named: list[str]


def named_speakers(sc: Scope, text: str) -> list[str]:
    return [s for s in sc.conv.speakers if re.search(rf"\b{re.escape(s)}\b", text)]


# ---------------------------------------------------------------- methods
Method = Callable[[Scope, Q], np.ndarray]


def m_bm25(field_name: str) -> Method:
    return lambda sc, q: sc.bm25[field_name].score(q.text)


def m_cos(field_name: str) -> Method:
    return lambda sc, q: sc.emb[field_name] @ q.vec


def m_rrf(a: Method, b: Method, k: float = 60.0) -> Method:
    return lambda sc, q: rrf(a(sc, q), b(sc, q), k=k)


def m_z(*parts: tuple[float, Method]) -> Method:
    def f(sc: Scope, q: Q) -> np.ndarray:
        return sum(w * zscore(m(sc, q)) for w, m in parts)

    return f


def m_norm(norm: Callable[[np.ndarray], np.ndarray], *parts: tuple[float, Method]) -> Method:
    def f(sc: Scope, q: Q) -> np.ndarray:
        return sum(w * norm(m(sc, q)) for w, m in parts)

    return f


def m_speaker(base: Method, boost: float) -> Method:
    """Turns spoken by a person the query names get ``boost`` (in the base's units)."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        if q.speakers_named and len(q.speakers_named) == 1:
            s = s + boost * (sc.speaker == q.speakers_named[0])
        return s

    return f


def m_spread_next(base: Method, decay: float = 0.5, mode: str = "max") -> Method:
    """One hop along NEXT (both directions, same session), activation = decay * seed."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        s0 = s - s.min()
        if mode == "max":
            spread = (sc.adj_next * s0[None, :]).max(axis=1)
            return s0 + decay * spread
        return s0 + decay * (sc.adj_next @ s0)

    return f


def m_session(base: Method, weight: float = 0.5, agg: str = "max") -> Method:
    """Session aggregation: every turn gets weight * its session's score."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        s0 = s - s.min()
        out = s0.copy()
        for sess in np.unique(sc.session):
            m = sc.session == sess
            v = s0[m]
            if agg == "max":
                agg_v = v.max()
            elif agg == "top3":
                agg_v = np.sort(v)[-3:].mean()
            else:
                agg_v = v.mean()
            out[m] += weight * agg_v
        return out

    return f


def m_prf_vec(base: Method, field_name: str, m: int = 5, beta: float = 0.5) -> Method:
    """Rocchio pseudo-relevance feedback on the query vector: q + beta * mean(top-m)."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        top = np.argsort(-s, kind="stable")[:m]
        v = q.vec + beta * sc.emb[field_name][top].mean(axis=0)
        v = v / np.linalg.norm(v)
        return sc.emb[field_name] @ v

    return f


def m_prf_bm25(base: Method, field_name: str, m: int = 5, terms: int = 10, w: float = 0.5) -> Method:
    """RM3-style expansion: add the top tf-idf terms of the top-m turns, weight w."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        idx = sc.bm25[field_name]
        top = np.argsort(-s, kind="stable")[:m]
        acc: dict[str, float] = {}
        for i in top:
            tf = idx.tfs[i]
            L = sum(tf.values()) or 1
            for t, c in tf.items():
                acc[t] = acc.get(t, 0.0) + c / L * idx.idf[t]
        qterms = analyze(q.text)
        extra = [t for t, _ in sorted(acc.items(), key=lambda x: -x[1]) if t not in qterms][:terms]
        return idx.score_terms(qterms + extra, [1.0] * len(qterms) + [w] * len(extra))

    return f


def m_entity_spread(base: Method, decay: float = 0.5, seeds: int = 10) -> Method:
    """Seeds (top turns) activate turns sharing a MENTIONS entity, weighted by entity idf."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        s0 = s - s.min()
        M = sc.mention
        df = M.sum(axis=0)
        idf = np.log(1 + len(M) / np.maximum(df, 1))
        idf = idf / idf.max() if idf.size else idf
        top = np.argsort(-s0, kind="stable")[:seeds]
        act = np.zeros_like(s0)
        for i in top:
            shared = (M * M[i][None, :] * idf[None, :]).max(axis=1)
            shared[i] = 0
            act = np.maximum(act, decay * s0[i] * shared)
        return s0 + act

    return f


# ---------------------------------------------------------------- runner
def run(methods: dict[str, Method], scopes: list[Scope], conv_filter: set[str] | None = None):
    results = {}
    for name, method in methods.items():
        items = []
        for sc in scopes:
            if conv_filter and sc.conv.conv_id not in conv_filter:
                continue
            for qq in sc.qs:
                s = method(sc, qq)
                order = np.argsort(-s, kind="stable")[:50]
                items.append((qq.q, [sc.ids[i] for i in order]))
        results[name] = evaluate(items)
    return results


def prepare(convs: list[Conversation]) -> list[Scope]:
    scopes = []
    for conv in convs:
        sc = build_scope(conv)
        texts = [q.question for q in conv.questions]
        vecs = embed(texts)
        sc.qs = [
            Q(q=q, text=q.question, vec=vecs[i], speakers_named=named_speakers(sc, q.question))
            for i, q in enumerate(conv.questions)
        ]
        scopes.append(sc)
    return scopes


GROUPS = ["overall", "single-hop", "multi-hop", "temporal", "open-domain", "adversarial"]


def table(results: dict, cols=("R@5", "R@10", "R@25", "R@50", "S@2", "S@5")) -> str:
    head = "| method | " + " | ".join(cols) + " | " + " | ".join(f"{g[:6]} R@10" for g in GROUPS[1:]) + " |"
    sep = "|" + "---|" * (1 + len(cols) + len(GROUPS) - 1)
    lines = [head, sep]
    for name, r in results.items():
        o = r["overall"]
        cells = [f"{o[c]:.1f}" for c in cols] + [f"{r[g]['R@10']:.1f}" if g in r else "-" for g in GROUPS[1:]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def m_diversify(base: Method, decay: float = 0.5, depth: int = 50) -> Method:
    """Session-diverse re-ranking: the r-th pick from one session has its score times
    decay**r (r = picks already taken from that session); greedy over the top ``depth``."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        s0 = s - s.min()
        cand = list(np.argsort(-s0, kind="stable")[:depth])
        taken: dict[int, int] = {}
        out = np.full(len(s0), -1.0)
        for pos in range(len(cand)):
            best = max(cand, key=lambda i: s0[i] * decay ** taken.get(sc.session[i], 0))
            cand.remove(best)
            taken[sc.session[best]] = taken.get(sc.session[best], 0) + 1
            out[best] = depth - pos
        return out

    return f


def keyword_matrix(sc: Scope, min_len: int = 4) -> np.ndarray:
    """turns x keywords: Lucene-analysed content stems of the turn's own text (names and
    nouns alike), plus the capitalised-name entities. Deterministic, no model."""
    if getattr(sc, "_kw", None) is not None:
        return sc._kw
    sets = []
    for t in sc.turns:
        toks = {w for w in analyze(t.full_text) if len(w) >= min_len and not w.isdigit()}
        sets.append(toks | {"ent:" + e for e in entities(t.full_text)})
    vocab = sorted(set().union(*sets))
    col = {w: j for j, w in enumerate(vocab)}
    m = np.zeros((len(sets), len(vocab)), dtype=np.float32)
    for i, ws in enumerate(sets):
        for w in ws:
            m[i, col[w]] = 1.0
    sc._kw = m
    return m


def m_keyword_spread(base: Method, weight: float = 0.25, seeds: int = 10) -> Method:
    """Two hops turn -[:MENTIONS]-> keyword <-[:MENTIONS]- turn, each hop decaying by 0.5
    (so weight 0.25), scaled by the keyword's normalised idf; max over seeds and keywords."""

    def f(sc: Scope, q: Q) -> np.ndarray:
        s = base(sc, q)
        s0 = s - s.min()
        M = keyword_matrix(sc)
        df = M.sum(axis=0)
        idf = np.log(1 + len(M) / np.maximum(df, 1))
        idf = idf / np.log(1 + len(M))
        top = np.argsort(-s0, kind="stable")[:seeds]
        act = np.zeros_like(s0)
        for i in top:
            w = M[i] * idf
            shared = (M * w[None, :]).max(axis=1)
            shared[i] = 0
            act = np.maximum(act, weight * s0[i] * shared)
        return s0 + act

    return f


# Query cleanup before the fulltext query: function words that Lucene's 33-word list keeps.
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


QUERY_STOP = _words(
    "what when where who whom whose which why how did does do done has have had was were "
    "is are am be been being would could should will can may might must shall i me my we "
    "our you your he him his she her they them their its it this that these those there "
    "here about from after before during over under again any some all both each more "
    "most other own same so than too very just also"
)


def clean_query(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9'\u2019]+", text)
    return " ".join(w for w in words if w.lower() not in QUERY_STOP)


def m_bm25_clean(field_name: str) -> Method:
    return lambda sc, q: sc.bm25[field_name].score(clean_query(q.text))


# ---------------------------------------------------------------- the final recipe
@dataclass(frozen=True)
class Recipe:
    """Constants of the final recipe (RECIPE.md). Defaults are the principled ones."""

    fulltext_field: str = "winctx"  # Turn.context: date + previous/own/next turn with speakers
    vector_field: str = "ctx"  # Turn.embedding of "Speaker on D Month YYYY: text [+caption]"
    candidates: int = 100  # per channel; z-scores use scope-wide mean/std (see RECIPE.md)
    speaker_boost: float = 1.0  # one standard deviation
    next_decay: float = 0.5  # one hop
    session_decay: float = 0.25  # two hops: turn -> session -> turn
    keyword_decay: float = 0.25  # two hops: turn -> keyword -> turn
    keyword_seeds: int = 10
    clean: bool = False  # drop question/function words before the fulltext query


def recipe(r: Recipe) -> Method:
    def f(sc: Scope, q: Q) -> np.ndarray:
        n = len(sc.turns)
        # 1. channels: fulltext (cleaned query, OR of terms) and exact cosine, z-scored over the
        #    scope (fulltext non-hits are 0, so mean/std come from the hits and the count n)
        ft = sc.bm25[r.fulltext_field].score(clean_query(q.text) if r.clean else q.text)
        cos = sc.emb[r.vector_field] @ q.vec
        cand = np.zeros(n, dtype=bool)
        cand[np.argsort(-ft, kind="stable")[: r.candidates]] = ft[np.argsort(-ft, kind="stable")[: r.candidates]] > 0
        cand[np.argsort(-cos, kind="stable")[: r.candidates]] = True
        s = zscore(ft) + zscore(cos)
        # 2. speaker: +boost for turns SPOKEN_BY the one person the query names
        if len(q.speakers_named) == 1:
            s = s + r.speaker_boost * (sc.speaker == q.speakers_named[0])
        s = np.where(cand, s, -np.inf)
        finite = np.isfinite(s)
        s0 = np.where(finite, s - s[finite].min(), 0.0)
        # 3. NEXT: one hop both ways inside a session, max of neighbours
        nxt = (sc.adj_next * s0[None, :]).max(axis=1)
        a = s0 + r.next_decay * nxt
        # 4. session: every turn gets decay * the best activation in its session
        best = {sess: a[sc.session == sess].max() for sess in np.unique(sc.session)}
        a = a + r.session_decay * np.array([best[x] for x in sc.session])
        # 5. keywords: top seeds spread to turns sharing a MENTIONS keyword (idf-weighted)
        if r.keyword_decay > 0:
            M = keyword_matrix(sc)
            idf = np.log(1 + n / np.maximum(M.sum(axis=0), 1)) / np.log(1 + n)
            act = np.zeros(n)
            for i in np.argsort(-a, kind="stable")[: r.keyword_seeds]:
                shared = (M * (M[i] * idf)[None, :]).max(axis=1)
                shared[i] = 0
                act = np.maximum(act, r.keyword_decay * a[i] * shared)
            a = a + act
        return a

    return f


# ---------------------------------------------------------------- the report
def ladder() -> dict[str, Method]:
    from dataclasses import replace

    base = m_z((1, m_bm25("winctx")), (1, m_cos("ctx")))
    r = Recipe()
    return {
        "BM25 (Lucene-english) over turn text+caption": m_bm25("raw"),
        "BM25 over 'Speaker on date: text'": m_bm25("ctx"),
        "MiniLM cosine over turn text+caption": m_cos("raw"),
        "MiniLM cosine over 'Speaker on date: text'": m_cos("ctx"),
        "naive RRF(k=60) of the two raw channels": m_rrf(m_bm25("raw"), m_cos("raw")),
        "BM25 over the NEXT window (prev+own+next)": m_bm25("win"),
        "RRF(k=60) window-BM25 + ctx-cosine": m_rrf(m_bm25("winctx"), m_cos("ctx")),
        "z-fusion window-BM25 + ctx-cosine": base,
        "  + speaker boost (1 sd)": m_speaker(base, 1.0),
        "  + NEXT spreading (0.5)": m_spread_next(m_speaker(base, 1.0), 0.5),
        "  + session aggregation (0.25) [= recipe, no keywords]": recipe(replace(r, keyword_decay=0.0)),
        "  + keyword MENTIONS spreading (0.25) = RECIPE": recipe(r),
        "recipe with query cleanup (stop-list)": recipe(replace(r, clean=True)),
        "recipe + Rocchio PRF on the vector (m=5, beta=0.5)": m_z((1, recipe(r)), (1, m_prf_vec(recipe(r), "ctx"))),
        "recipe, session-diverse re-rank (0.9)": m_diversify(recipe(r), 0.9),
    }


def main() -> None:
    scopes = prepare(load())
    methods = ladder()
    print("## All 304 questions (conv-26 + conv-30)\n")
    print(table(run(methods, scopes)))
    final = {"RECIPE": recipe(Recipe())}
    for conv in ("conv-26", "conv-30"):
        print(f"\n## {conv} only\n")
        print(table(run(final, scopes, {conv})))
    print("\n## RECIPE, every metric per category\n")
    res = run(final, scopes)["RECIPE"]
    cols = ["n", "R@5", "R@10", "R@25", "R@50", "S@2", "S@5", "S@10"]
    print("| group | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for g in GROUPS:
        print(f"| {g} | " + " | ".join(f"{res[g][c]:.0f}" if c == "n" else f"{res[g][c]:.1f}" for c in cols) + " |")


if __name__ == "__main__":
    main()
