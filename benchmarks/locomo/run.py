"""LoCoMo retrieval quality on the real engine.

Ingests every turn of every conversation as an episodic memory (no model calls; one scope
per conversation), recalls for every question, and reports the paper's turn-level recall@k
(R@k) and session-level recall@k (S@k), any-evidence hit@k (H@k) and all-evidence recall@k
(A@k), overall and per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial), scored with the dataset's cited evidence, the audited evidence, or both
(``--evidence``; the audit file defaults to ``<data>-audit.json`` beside the data). In the same run, on the same Neo4j:
BM25-only (the fulltext index over the plain turn text) and vector-only (MiniLM cosine over
the plain turn text) baselines, from a second, plain copy of each conversation.

    python -m benchmarks.locomo.run --data locomo-dev.json --evidence both   # or set HIPPOGRAPH_LOCOMO_DATA

``--embedder`` picks MiniLM's runtime: ``torch`` (sentence-transformers, the default), ``onnx``
(the same vectors on ONNX Runtime), ``onnx-int8-bulk`` (turns embedded by the int8 graph,
questions by the float one) or ``onnx-int8`` (both int8).
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import Progress, TaskID

from benchmarks._server import bench_store
from benchmarks.locomo.dataset import (
    CATEGORIES,
    DATA_ENV,
    Conversation,
    Question,
    audit_path,
    audited,
    data_path,
    load,
    regraded,
)
from benchmarks.locomo.metrics import evaluate
from hippograph.embeddings import EmbeddingProvider, OnnxMiniLMEmbeddings, SentenceTransformerEmbeddings
from hippograph.memory import ConversationTurn, Memory
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.config import RecallConfig, ScoreWeights
from hippograph.retrieval.lucene import build_query
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.scope import Scope
from tests.support.memory_internals import internals

DEPTH = 50
GROUPS = ["overall", "single-hop", "multi-hop", "temporal", "open-domain", "adversarial"]
COLUMNS = ["R@5", "R@10", "R@20", "R@25", "R@50", "H@5", "H@10", "H@20", "A@5", "A@10", "S@5", "S@10"]
EVIDENCE = ("official", "audited", "both")


def gradings(evidence: str, convs: list[Conversation], audit: Path | None) -> dict[str, list[Conversation]]:
    """The evidence to score with, by name: the dataset's cited evidence, the audit's, or both."""
    out: dict[str, list[Conversation]] = {}
    if evidence in ("official", "both"):
        out["official evidence"] = convs
    if evidence in ("audited", "both"):
        if audit is None or not audit.is_file():
            raise SystemExit(f"audited evidence asked for but the audit file {audit} is not a file (pass --audit)")
        out["audited evidence"] = audited(convs, audit)
    return out


EMBEDDERS = ("torch", "onnx", "onnx-int8-bulk", "onnx-int8")


def make_embedder(name: str) -> EmbeddingProvider:
    if name == "torch":
        return SentenceTransformerEmbeddings()
    int8 = {"onnx": "never", "onnx-int8-bulk": "bulk", "onnx-int8": "always"}[name]
    return OnnxMiniLMEmbeddings(int8=int8)  # type: ignore[arg-type]


def turns_of(conv: Conversation) -> list[ConversationTurn]:
    return [
        ConversationTurn(
            turn_id=t.dia_id,
            session_id=t.session_id,
            speaker=t.speaker,
            text=t.text,
            caption=t.caption,
            occurred_at=t.date.timestamp(),
        )
        for t in conv.turns
    ]


async def plain_copy(memory: Memory, scope: Scope, conv: Conversation) -> dict[str, str]:
    """The baselines' data: each turn's own text only, embedded as is. Returns id → dia_id."""
    texts = [t.full_text for t in conv.turns]
    vectors = await internals(memory).services.embedder.embed_batch(texts)
    nodes = [
        MemoryNode(layer=Layer.EPISODIC, content=text, embedding=v, properties={"turn_id": t.dia_id})
        for t, text, v in zip(conv.turns, texts, vectors, strict=True)
    ]
    await internals(memory).store.add_nodes(scope, nodes)
    return {n.id: t.dia_id for n, t in zip(nodes, conv.turns, strict=True)}


async def bm25_only(memory: Memory, scope: Scope, q: str, ids: dict[str, str]) -> list[str]:
    lucene = build_query(q, scope.ancestor_keys(), [Layer.EPISODIC])
    if lucene is None:
        return []
    vec = await internals(memory).services.embedder.embed(q)
    rows = await internals(memory).store.conn.read(
        RetrievalQuery.SEARCH_FULLTEXT, lucene=lucene, visible=scope.ancestor_keys(), k=DEPTH, vector=vec
    )
    return [ids[r["id"]] for r in rows]


async def vector_only(memory: Memory, scope: Scope, q: str, ids: dict[str, str]) -> list[str]:
    vec = await internals(memory).services.embedder.embed(q)
    return [ids[h.id] for h in await internals(memory).store.search_vectors(scope, vec, DEPTH, layers=[Layer.EPISODIC])]


def table(title: str, results: dict[str, dict[str, dict[str, float]]]) -> str:
    lines = [
        f"### {title}",
        "",
        "categories: " + ", ".join(f"{n} {name}" for n, name in sorted(CATEGORIES.items())),
        "",
        "| method | group | n | " + " | ".join(COLUMNS) + " |",
        "|---|---|---|" + "---|" * len(COLUMNS),
    ]
    for method, res in results.items():
        for group in GROUPS:
            if group in res:
                row = res[group]
                cells = " | ".join(f"{row[c]:.1f}" for c in COLUMNS)
                lines.append(f"| {method} | {group} | {int(row['n'])} | {cells} |")
    return "\n".join(lines)


async def main(
    path: str, limit: int | None, evidence: str = "official", audit: Path | None = None, embedder_name: str = "torch"
) -> None:
    console = Console()
    convs = load(path)
    grades = gradings(evidence, convs, audit)
    embedder = make_embedder(embedder_name)
    configs = {
        "hippograph (relevance only)": RecallConfig(
            top_k=DEPTH,
            episodic_raw_cap=DEPTH,
            track_access=False,
            weights=ScoreWeights(relevance=1.0, recency=0.0, frequency=0.0, proximity=0.0),
        ),
        "hippograph (default 4-signal weights)": RecallConfig(top_k=DEPTH, episodic_raw_cap=DEPTH, track_access=False),
    }
    rankings: dict[str, list[tuple[Question, Sequence[str]]]] = {m: [] for m in [*configs, "BM25 only", "vector only"]}
    latencies: list[float] = []
    run = uuid.uuid4().hex[:8]
    async with bench_store() as (store, _pid):
        memory = Memory(store, embedder)
        for conv in convs:
            scope = Scope.root("bench", run).child("conversation", conv.conv_id)
            plain = Scope.root("bench", run).child("plain", conv.conv_id)
            t0 = time.perf_counter()
            with Progress(console=console, transient=True) as progress:
                task = progress.add_task(f"ingest {conv.conv_id}", total=len(conv.turns))

                def advance(done: int, total: int, task: TaskID = task) -> None:
                    progress.update(task, completed=done)

                await memory.ingest(scope, turns_of(conv), progress=advance)
            ids = await plain_copy(memory, plain, conv)
            console.print(f"{conv.conv_id}: {len(conv.turns)} turns ingested in {time.perf_counter() - t0:.1f} s")
            now = max(t.date.timestamp() for t in conv.turns) + 86_400
            questions = conv.questions[:limit] if limit else conv.questions
            for q in questions:
                for name, cfg in configs.items():
                    t = time.perf_counter()
                    result = await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
                    latencies.append((time.perf_counter() - t) * 1000)
                    rankings[name].append((q, [str(i.node.properties["turn_id"]) for i in result.items]))
                rankings["BM25 only"].append((q, await bm25_only(memory, plain, q.question, ids)))
                rankings["vector only"].append((q, await vector_only(memory, plain, q.question, ids)))
        await memory.forget(Scope.root("bench", run))
    title = f"LoCoMo ({len(convs)} conversations, {sum(len(c.questions) for c in convs)} questions"
    for grade, graded in grades.items():
        results = {name: evaluate(regraded(items, graded)) for name, items in rankings.items()}
        print(table(f"{title}, {grade})", results))
    latencies.sort()
    console.print(
        f"recall latency p50 {latencies[len(latencies) // 2]:.1f} ms, "
        f"p95 {latencies[int(len(latencies) * 0.95)]:.1f} ms"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help=f"the LoCoMo JSON file (default: ${DATA_ENV})")
    ap.add_argument("--limit", type=int, default=None, help="questions per conversation (for a quick look)")
    ap.add_argument("--evidence", choices=EVIDENCE, default="official", help="score with cited, audited or both")
    ap.add_argument("--audit", type=Path, default=None, help="the audit JSON (default: <data>-audit.json beside it)")
    ap.add_argument("--embedder", choices=EMBEDDERS, default="torch", help="MiniLM's runtime (default: torch)")
    a = ap.parse_args()
    data = data_path(a.data)
    asyncio.run(main(str(data), a.limit, a.evidence, a.audit or audit_path(data), a.embedder))
