"""Capture every memory the product scores for each LoCoMo question, with its score parts.

Recency (and frequency, proximity, the multipliers) only enter recall's last step: the final
score of the ``rank_depth(k)`` most active memories. So one product pass that keeps each
scored memory's parts lets ``research/recency.py`` rank exactly as the product would under any
other final-score definition, without re-running Neo4j. Ingest is the product's default
(no resemblance links); embeddings come from explore's disk cache.

    PYTHONPATH=src:. python -m benchmarks.locomo.research.capture --data ../shared/data/locomo/locomo-dev.json \
        --out /tmp/assoc/parts.pkl [--topic]
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import uuid
from pathlib import Path
from typing import Any

from benchmarks._server import bench_store
from benchmarks.locomo.dataset import DEFAULT_PATH, load
from benchmarks.locomo.explore import CachedEmbeddings
from benchmarks.locomo.run import DEPTH, turns_of
from hippograph.embeddings import SentenceTransformerEmbeddings
from hippograph.layers import MemoryOrchestrator
from hippograph.layers.ingest import ingest_conversation
from hippograph.models import Layer
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.recall_state import rank_depth
from hippograph.scope import Scope


async def main(path: str, cache: Path, out: Path, topic: bool = False) -> None:
    convs = load(path)
    embedder = CachedEmbeddings(SentenceTransformerEmbeddings(), cache)
    depth = rank_depth(DEPTH)
    # top_k = depth: every memory the product scores for a top-50 recall comes back (the
    # re-scorer keeps the `depth` most relevant, which is the product's own cut).
    cfg = RecallConfig(top_k=depth, episodic_raw_cap=10 * depth, track_access=False)
    if topic:  # person-centred recall (opt-in), at the weights session 4 measured
        cfg = cfg.model_copy(update={"topic_weight": 1.0, "topic_head_weight": 0.5})
    run = uuid.uuid4().hex[:8]
    data: dict[str, dict[str, Any]] = {}
    async with bench_store() as (store, _pid):
        memory = MemoryOrchestrator(store, embedder)
        for conv in convs:
            scope = Scope.root("capture", run).child("conversation", conv.conv_id)
            await ingest_conversation(memory.services, memory.episodic, scope, turns_of(conv))
            embedder.save()
            now = max(t.date.timestamp() for t in conv.turns) + 86_400
            qs = []
            for q in conv.questions:
                result = await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
                items = [
                    {
                        "turn": str(i.node.properties["turn_id"]),
                        "at": i.node.occurred_at,
                        "channels": [c.value for c in i.channels],
                        **i.parts.model_dump(),
                    }
                    for i in result.items
                ]
                qs.append((q, items))
            embedder.save()
            data[conv.conv_id] = {
                "now": now,
                "times": sorted(t.date.timestamp() for t in conv.turns),
                "questions": qs,
            }
        await memory.forget(Scope.root("capture", run))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(pickle.dumps(data))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DEFAULT_PATH))
    ap.add_argument("--cache", type=Path, default=Path("/tmp/locomo_embed_cache.pkl"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/assoc/parts.pkl"))
    ap.add_argument("--topic", action="store_true", help="person-centred recall on (topic 1.0, head 0.5)")
    a = ap.parse_args()
    asyncio.run(main(a.data, a.cache, a.out, a.topic))
