"""A faithful-enough model of Neo4j's fulltext index with the 'english' analyzer.

Lucene's EnglishAnalyzer: StandardTokenizer -> EnglishPossessiveFilter -> LowerCaseFilter ->
StopFilter(ENGLISH_STOP_WORDS_SET, 33 words) -> PorterStemFilter. Scoring: BM25Similarity
(k1 = 1.2, b = 0.75, idf = ln(1 + (N - n + 0.5) / (n + 0.5))); a query of bare terms is an OR
of term clauses whose scores add up (a term repeated in the query is counted again).
Lucene encodes document length lossily in one byte; that rounding is ignored here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import snowballstemmer

# org.apache.lucene.analysis.en.EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)*")
_STEMMER = snowballstemmer.stemmer("porter")


def analyze(text: str) -> list[str]:
    tokens = []
    for raw in _TOKEN.findall(text):
        tok = raw.lower().replace("\u2019", "'")
        if tok.endswith("'s"):
            tok = tok[:-2]
        if not tok or tok in STOP_WORDS:
            continue
        tokens.append(tok)
    return _STEMMER.stemWords(tokens)


class BM25Index:
    """BM25 over a fixed list of documents (one scope's nodes)."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tfs = [Counter(analyze(d)) for d in docs]
        self.lens = np.array([sum(tf.values()) for tf in self.tfs], dtype=float)
        self.avgdl = float(self.lens.mean()) if len(docs) else 1.0
        self.n = len(docs)
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        self.idf = {t: math.log(1 + (self.n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, tf in enumerate(self.tfs):
            for t, c in tf.items():
                self.postings.setdefault(t, []).append((i, c))

    def score_terms(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> np.ndarray:
        scores = np.zeros(self.n)
        norm = self.k1 * (1 - self.b + self.b * self.lens / self.avgdl)
        for j, t in enumerate(terms):
            if t not in self.postings:
                continue
            w = 1.0 if weights is None else weights[j]
            idf = self.idf[t]
            for i, c in self.postings[t]:
                scores[i] += w * idf * c * (self.k1 + 1) / (c + norm[i])
        return scores

    def score(self, query: str) -> np.ndarray:
        return self.score_terms(analyze(query))
