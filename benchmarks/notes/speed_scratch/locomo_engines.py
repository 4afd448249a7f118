"""LoCoMo dev, before/after in one run (issue: speed, phase A): the stage-by-stage engine and
the one-round-trip recall on the same ingested data (torch MiniLM), plus the one-round-trip
recall on a second copy ingested and queried with the ONNX MiniLM. Reports R@k for each and
how many recalls differ item by item between the two engines.

    PYTHONPATH=src:. python benchmarks/notes/speed_scratch/locomo_engines.py
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid

from benchmarks._server import bench_store
from benchmarks.locomo.dataset import DEFAULT_PATH, load
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.run import turns_of
from benchmarks.recall_oneshot import OneShotEngine
from benchmarks.recall_profile import same
from hippograph.embeddings import SentenceTransformerEmbeddings
from hippograph.embeddings.onnx_minilm import OnnxMiniLMEmbeddings
from hippograph.layers import MemoryOrchestrator
from hippograph.models import Layer
from hippograph.retrieval.config import RecallConfig, ScoreWeights
from hippograph.scope import Scope

DEPTH = 50


async def main() -> None:
    convs = load(os.environ.get("LOCOMO", str(DEFAULT_PATH)))
    configs = {
        "relevance only": RecallConfig(
            top_k=DEPTH, episodic_raw_cap=DEPTH, track_access=False,
            weights=ScoreWeights(relevance=1.0, recency=0.0, frequency=0.0, proximity=0.0),
        ),
        "default": RecallConfig(top_k=DEPTH, episodic_raw_cap=DEPTH, track_access=False),
    }
    torch_e, onnx_e = SentenceTransformerEmbeddings(), OnnxMiniLMEmbeddings()
    rankings: dict[str, list] = {}
    differ = dict.fromkeys(configs, 0)
    n = 0
    run = uuid.uuid4().hex[:8]
    async with bench_store() as (store, _pid):
        mem_t = MemoryOrchestrator(store, torch_e)
        mem_o = MemoryOrchestrator(store, onnx_e)
        one_t = OneShotEngine(store, torch_e)
        one_o = OneShotEngine(store, onnx_e)
        for conv in convs:
            st = Scope.root("bench", run).child("conversation", conv.conv_id)
            so = Scope.root("bench", run).child("onnx", conv.conv_id)
            t0 = time.perf_counter()
            await mem_t.ingest(st, turns_of(conv))
            await mem_o.ingest(so, turns_of(conv))
            print(f"{conv.conv_id}: ingested twice in {time.perf_counter() - t0:.0f} s", flush=True)
            now = max(t.date.timestamp() for t in conv.turns) + 86_400
            for q in conv.questions:
                n += 1
                for name, cfg in configs.items():
                    a = await mem_t.engine.recall(st, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
                    b = await one_t.recall(st, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
                    c = await one_o.recall(so, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
                    differ[name] += not same(a, b)
                    for label, res in (("engine", a), ("one round trip", b), ("one round trip + ONNX", c)):
                        rankings.setdefault(f"{label} ({name})", []).append(
                            (q, [str(i.node.properties["turn_id"]) for i in res.items])
                        )
        await mem_t.forget(Scope.root("bench", run))
    print(f"{len(convs)} conversations, {n} questions")
    for key, items in rankings.items():
        r = evaluate(items)["overall"]
        print(f"{key}: R@5 {r['R@5']:.1f} R@10 {r['R@10']:.1f} R@25 {r['R@25']:.1f} S@5 {r['S@5']:.1f}")
    print("recalls differing item by item, engine vs one round trip:", differ, "of", n)


if __name__ == "__main__":
    asyncio.run(main())
