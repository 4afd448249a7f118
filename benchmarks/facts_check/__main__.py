"""Run the facts check on the real engine.

    python -m benchmarks.facts_check            # MiniLM on torch, as the LoCoMo harness
    python -m benchmarks.facts_check --embedder default
    python -m benchmarks.facts_check --ablation # also each rule off (or alone), one ingest

Talks to ``HIPPOGRAPH_NEO4J_URI`` when set, else to a fresh local Neo4j it starts and stops.
Each user's story goes into its own scope under a root of this run, erased at the end.
Consolidation does not run (see :mod:`benchmarks.facts_check.check`).
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

from rich.console import Console

from benchmarks._server import bench_store
from benchmarks.facts_check.check import (
    ABLATION,
    Outcome,
    StoryClock,
    ask,
    check_config,
    load_story,
    report,
    store_user,
    summarise,
)
from hippograph.embeddings import EmbeddingProvider, SentenceTransformerEmbeddings, default_embedder
from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.support.memory_internals import internals


def make_embedder(name: str) -> EmbeddingProvider:
    return SentenceTransformerEmbeddings() if name == "torch" else default_embedder()


async def main(embedder_name: str, misses: bool, ablation: bool) -> None:
    console = Console()
    story = load_story()
    clock = StoryClock(story.now)
    root = Scope.root("bench", f"facts-{uuid.uuid4().hex[:8]}")
    variants = {"default": check_config()}
    if ablation:
        variants |= {name: check_config(**changes) for name, changes in ABLATION.items()}
    outcomes: dict[str, list[Outcome]] = {name: [] for name in variants}
    async with bench_store() as (store, _pid):
        memory = Memory(store, make_embedder(embedder_name), clock=clock)
        try:
            for user in story.users:
                scope = root.child("user", user.id)
                kept = await store_user(memory, clock, scope, user)
                for name, config in variants.items():
                    outcomes[name] += await ask(memory, scope, user, kept, story.now, config)
        finally:
            await internals(memory).engine.drain()
            await memory.forget(root)

    def show(line: str) -> None:
        console.print(line, soft_wrap=True, markup=False)

    report(outcomes["default"], show, misses=misses)
    for name in list(variants)[1:]:
        s = summarise(outcomes[name])
        show(f"{name}: first {s.first}, top 5 {s.top5}, a superseded version above {s.superseded_above}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=("torch", "default"), default="torch", help="MiniLM's runtime")
    ap.add_argument("--quiet", action="store_true", help="the summary only, not each question missed")
    ap.add_argument("--ablation", action="store_true", help="also each kept-fact rule off, or alone")
    a = ap.parse_args()
    asyncio.run(main(a.embedder, not a.quiet, a.ablation))
