"""Fast iteration on LoCoMo recall: ingest once, compare recall variants, leave one conversation out.

The product ingests and recalls (as in ``run.py``); embeddings are cached on disk keyed by text
(``--cache``, default ``.hippograph/benchmarks/locomo_embed_cache.pkl``), so after the first
run only Neo4j works.
Every variant is a named ``RecallConfig``; the table shows R@5 / R@10, any-evidence hit@10 /
hit@20, all-evidence recall@10 and S@5 per group on the whole dev split and per conversation,
and the leave-one-conversation-out (LOCO) row: the variant that scores best (overall R@5 +
R@10) on one conversation, measured on the other. ``--evidence`` scores with the dataset's
cited evidence, the audited evidence or both (see ``run.py``).

    python -m benchmarks.locomo.explore --data locomo-dev.json [--variants a,b] [--evidence both]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import pickle
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from benchmarks import bench_dir
from benchmarks._server import bench_store
from benchmarks.locomo.dataset import DATA_ENV, Conversation, Question, audit_path, data_path, load, regraded
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.run import DEPTH, EVIDENCE, gradings, turns_of
from hippograph.embeddings import EmbeddingProvider, SentenceTransformerEmbeddings
from hippograph.memory import Memory
from hippograph.memory.enrich import Enricher, KeyphraseEnricher
from hippograph.memory.ingest import RESEMBLANCE_K, ingest_conversation
from hippograph.models import Layer
from hippograph.retrieval.config import ActivationConfig, RecallConfig, ScoreWeights
from hippograph.scope import Scope
from tests.support.memory_internals import internals

GROUPS = ["overall", "multi-hop", "open-domain", "single-hop", "temporal", "adversarial"]
COLS = ["R@5", "R@10", "H@10", "H@20", "A@10", "S@5"]


class CachedEmbeddings:
    """An embedder whose vectors persist on disk, keyed by the SHA-1 of the text."""

    def __init__(self, inner: SentenceTransformerEmbeddings, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.cache: dict[str, list[float]] = pickle.loads(path.read_bytes()) if path.exists() else {}
        self.dirty = False
        self.hits = 0

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    async def embed(self, text: str) -> list[float]:
        return (await self.embed_batch([text]))[0]

    async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if self._key(t) not in self.cache]
        self.hits += len(texts) - len(missing)
        if missing:
            for t, v in zip(missing, await self.inner.embed_batch(missing), strict=True):
                self.cache[self._key(t)] = v
            self.dirty = True
        return [self.cache[self._key(t)] for t in texts]

    def save(self) -> None:
        if self.dirty:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(pickle.dumps(self.cache))


RELEVANCE_ONLY = ScoreWeights(relevance=1.0, recency=0.0, frequency=0.0, proximity=0.0)


def base(**kw: object) -> RecallConfig:
    return RecallConfig(top_k=DEPTH, episodic_raw_cap=DEPTH, track_access=False, **kw)  # type: ignore[arg-type]


def act(**kw: object) -> ActivationConfig:
    return ActivationConfig(**kw)  # type: ignore[arg-type]


NO_RECENCY = ScoreWeights(relevance=0.6, recency=0.0, frequency=0.2, proximity=0.2)
VARIANTS: dict[str, tuple[str, Callable[[], RecallConfig]]] = {
    # name: (how the conversation was ingested, recall config): "plain" is the product's default,
    # "links" with resemblance links, "keys…" with the offline enricher's keys (ENRICHERS)
    "default": ("plain", lambda: base()),
    "relevance-only": ("plain", lambda: base(weights=RELEVANCE_ONLY)),
    "no-recency": ("plain", lambda: base(weights=NO_RECENCY)),
    "no-spreading": ("plain", lambda: base(activation=act(max_nodes=0))),
    # the ablation of the default: one part off at a time
    "no-edge-spreading": ("plain", lambda: base(activation=act(base_decay=1e-9))),  # every edge arrival below threshold
    "no-session-spreading": ("plain", lambda: base(activation=act(session_decay=0.0))),
    "no-cue-spreading": ("plain", lambda: base(activation=act(cue_decay=0.0))),
    "no-fulltext": ("plain", lambda: base(fulltext_weight=0.0)),
    "no-vector": ("plain", lambda: base(vector_weight=0.0)),
    "no-person-bonus": ("plain", lambda: base(person_bonus=0.0)),
    "facts-dated": ("plain", lambda: base(current_facts_timeless=False)),  # current facts age like turns
    "topic": ("plain", lambda: base(topic_weight=1.0, topic_head_weight=0.5)),
    "topic-rest-only": ("plain", lambda: base(topic_weight=1.0)),
    # neighbour turns: spreading two hops along the session's NEXT chain (±2 turns) instead of one
    "neighbours-2": ("plain", lambda: base(activation=act(max_hops=2))),
    "neighbours-2-strong": ("plain", lambda: base(activation=act(max_hops=2, base_decay=0.7))),
    # dates: the default prefers memories inside a time expression's window; this is without it
    "no-dates": ("plain", lambda: base(time_aware=False)),
    # cue spreading walks cues until this many members (the default: 500)
    "cue-budget-2000": ("plain", lambda: base(activation=act(cue_budget=2000))),
    "cue-budget-1000": ("plain", lambda: base(activation=act(cue_budget=1000))),
    "cue-budget-250": ("plain", lambda: base(activation=act(cue_budget=250))),
    # session evidence as a prior: every candidate gains this share of its session's best evidence
    "session-prior-0.2": ("plain", lambda: base(session_prior=0.2)),
    "session-prior-0.5": ("plain", lambda: base(session_prior=0.5)),
    # HippoRAG 2's seed weighting: a cue passes 1 / degree (not ln(1 + N/degree) / ln(1 + N))
    "rarity-inverse": ("plain", lambda: base(activation=act(cue_rarity="inverse"))),
    "rarity-inverse-strong": ("plain", lambda: base(activation=act(cue_rarity="inverse", cue_decay=0.5))),
    # the second and third piece of evidence: pseudo-relevance feedback in the vector channel,
    # diversity across sessions in the final order (person-centred recall: "topic" above)
    "feedback-0.5": ("plain", lambda: base(feedback_weight=0.5)),
    "feedback-1": ("plain", lambda: base(feedback_weight=1.0)),
    "diversity-0.2": ("plain", lambda: base(session_diversity=0.2)),
    "diversity-0.4": ("plain", lambda: base(session_diversity=0.4)),
    "links": ("links", lambda: base()),
    "links relevance-only": ("links", lambda: base(weights=RELEVANCE_ONLY)),
    "keys": ("keys", lambda: base()),
    "keys-no-phrases": ("keys-no-phrases", lambda: base()),  # dates and statements, no keyphrases
}
ENRICHERS: dict[str, Callable[[EmbeddingProvider], Enricher]] = {
    "keys": lambda embedder: KeyphraseEnricher(embedder),
    "keys-no-phrases": lambda embedder: KeyphraseEnricher(embedder, keyphrases=0),
}

Ranking = list[tuple[Question, Sequence[str]]]


def rows(name: str, results: dict[str, dict[str, float]]) -> list[str]:
    out = []
    for g in GROUPS:
        if g in results:
            r = results[g]
            out.append(f"| {name} | {g} | {int(r['n'])} | " + " | ".join(f"{r[c]:.1f}" for c in COLS) + " |")
    return out


def loco(per_conv: dict[str, dict[str, Ranking]]) -> list[str]:
    """For each conversation: the variant best on the other one, measured on this one."""
    convs = list(next(iter(per_conv.values())))
    lines = []
    for held in convs:
        others = [c for c in convs if c != held]

        def objective(variant: str, others: list[str] = others) -> float:
            r = evaluate([x for c in others for x in per_conv[variant][c]])["overall"]
            return r["R@5"] + r["R@10"]

        chosen = max(per_conv, key=objective)
        lines += [f"chosen on {'+'.join(others)}: {chosen}"]
        lines += rows(f"LOCO held-out {held} ({chosen})", evaluate(per_conv[chosen][held]))
    return lines


async def main(
    path: str,
    variants: list[str],
    cache: Path,
    dump: Path | None,
    limit: int | None,
    evidence: str = "official",
    audit: Path | None = None,
) -> None:
    console = Console()
    convs: list[Conversation] = load(path)
    grades = gradings(evidence, convs, audit)
    if limit:  # timings only: recall figures need every question
        convs = [replace(c, questions=c.questions[:limit]) for c in convs]
    embedder = CachedEmbeddings(SentenceTransformerEmbeddings(), cache)
    per_conv: dict[str, dict[str, Ranking]] = {v: {c.conv_id: [] for c in convs} for v in variants}
    latency: dict[str, list[float]] = {v: [] for v in variants}
    run = uuid.uuid4().hex[:8]
    async with bench_store() as (store, _pid):
        memory = Memory(store, embedder)
        for conv in convs:
            scopes = {}
            for ingest in sorted({VARIANTS[v][0] for v in variants}):
                scopes[ingest] = Scope.root("explore", run).child("conversation", f"{conv.conv_id}-{ingest}")
                t0 = time.perf_counter()
                stored = await ingest_conversation(
                    internals(memory).services, internals(memory).episodic, scopes[ingest], turns_of(conv),
                    resemblance_k=RESEMBLANCE_K if ingest == "links" else 0,
                )  # fmt: skip
                console.print(f"{conv.conv_id}: ingest ({ingest}) {time.perf_counter() - t0:.1f} s")
                if ingest in ENRICHERS:
                    t0 = time.perf_counter()
                    keys = await memory.enrich(scopes[ingest], ENRICHERS[ingest](embedder), turns=stored)
                    spent = time.perf_counter() - t0
                    console.print(
                        f"{conv.conv_id}: {keys} keys for {len(stored)} turns in {spent:.1f} s "
                        f"({spent * 1000 / len(stored):.1f} s per 1k turns, embeddings cached: {embedder.hits} hits)"
                    )
            embedder.save()
            now = max(t.date.timestamp() for t in conv.turns) + 86_400
            configs = {v: VARIANTS[v][1]() for v in variants}
            for q in conv.questions:  # variants interleaved question by question: load hits all alike
                for v in variants:
                    scope = scopes[VARIANTS[v][0]]
                    t = time.perf_counter()
                    result = await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=configs[v], now=now)
                    latency[v].append((time.perf_counter() - t) * 1000)
                    per_conv[v][conv.conv_id].append((q, [str(i.node.properties["turn_id"]) for i in result.items]))
            embedder.save()
        await memory.forget(Scope.root("explore", run))
    if dump is not None:
        dump.write_bytes(
            pickle.dumps(
                {
                    v: {c: [(q.question, q.category, q.evidence, r) for q, r in items] for c, items in by_conv.items()}
                    for v, by_conv in per_conv.items()
                }
            )
        )
    lines: list[str] = []
    for grade, graded in grades.items():
        by_variant = {
            v: {c: regraded(items, graded) for c, items in by_conv.items()} for v, by_conv in per_conv.items()
        }
        lines += [
            "",
            f"{grade}:",
            "| variant | group | n | " + " | ".join(COLS) + " |",
            "|---|---|---|" + "---|" * len(COLS),
        ]
        for v in variants:
            lines += rows(v, evaluate([x for c in by_variant[v].values() for x in c]))
        for v in variants:
            for c, items in by_variant[v].items():
                lines += rows(f"{v} [{c}]", evaluate(items))
        if len(variants) > 1 and len(convs) > 1:
            lines += loco(by_variant)
    for v, ms in latency.items():
        ms.sort()
        lines.append(f"{v}: p50 {ms[len(ms) // 2]:.1f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms (with embedding)")
    print("\n".join(lines))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help=f"the LoCoMo JSON file (default: ${DATA_ENV})")
    ap.add_argument("--variants", default="default,relevance-only", help=f"comma-separated of {', '.join(VARIANTS)}")
    ap.add_argument("--cache", type=Path, default=bench_dir("locomo_embed_cache.pkl"))
    ap.add_argument("--limit", type=int, default=None, help="questions per conversation (for timings)")
    ap.add_argument("--dump", type=Path, default=None, help="pickle every ranking here (for analysis)")
    ap.add_argument("--evidence", choices=EVIDENCE, default="official", help="score with cited, audited or both")
    ap.add_argument("--audit", type=Path, default=None, help="the audit JSON (default: <data>-audit.json beside it)")
    a = ap.parse_args()
    data = data_path(a.data)
    variants = a.variants.split(",")
    asyncio.run(main(str(data), variants, a.cache, a.dump, a.limit, a.evidence, a.audit or audit_path(data)))
