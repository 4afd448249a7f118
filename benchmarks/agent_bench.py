"""Agent turn overhead: the pipeline's own time per turn, model excluded.

Seeds one user scope with N memories (default 10,000: ingested conversation turns with their
session chains and cues, plus semantic facts), all embedded with the real MiniLM model, then
runs turns through ``Agent.run`` with an instant scripted model whose reply carries a
MEMORY_EXTRACT block. Per turn it reports the overhead: session + triage + hydrate (the query
embedding, recall, spreading activation, context assembly) + prompt + extraction + scheduling
of background consolidation; and the wall time of ``run`` minus the model's time. Every query
is distinct, so the embedder's cache never answers.

Per recall profile (see ``PROFILES``), two phases: ``isolated`` drains background consolidation
after each turn (untimed), so a turn never competes with the previous one's writes;
``back-to-back`` does not drain, so each turn overlaps the previous turn's background work (its
embedding shares the embedder's worker).

    python -m benchmarks.agent_bench [--memories 10000] [--turns 200] [--warmup 20]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import time
import uuid

from rich.console import Console
from rich.table import Table

from benchmarks._server import bench_store
from hippograph.agent import Agent, AgentConfig, AgentResponse, ConsolidationSettings
from hippograph.layers.base import make_node
from hippograph.llm import ScriptedModel
from hippograph.memory import ConversationTurn, Memory
from hippograph.models import Layer
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.scope import Scope
from tests.support.memory_internals import internals

NAMES = re.findall(
    r"\w+",
    """Ada Ben Chloe Dmitri Elena Farid Greta Hiro Ines Jonas Kira Luca
Maya Nadia Omar Priya Quentin Rosa Sami Tara Umar Vera Wen Xavier Yara Zane Alba Bruno Carmen""",
)
PLACES = re.findall(
    r"\w+",
    """Lisbon Porto Madrid Berlin Oslo Kyoto Lima Cairo Dublin Prague
Vienna Quebec Nairobi Seoul Hanoi Austin Denver Bergen Krakow Seville Turin Ghent Bilbao""",
)
_THINGS = """sourdough bread; a vintage bicycle; the garden shed; jazz records; a sailing trip;
the new espresso machine; a chess tournament; pottery classes; the database migration;
a marathon; the climbing gym; a birthday party; the roof repair; a violin recital;
the quarterly report; a camping weekend; the kitchen renovation; a photography course;
the release pipeline; a board game night; the dog's vet visit; a language exchange;
the solar panels; a road trip; the book club; a job interview; the wedding plans"""
THINGS = [" ".join(t.split()) for t in _THINGS.split(";")]
MONTHS = re.findall(r"\w+", "January February March April May June July August September October")
TEMPLATES = [
    "{a} told me about {t} in {p} last {m}.",
    "I finally finished {t}; {a} helped a lot.",
    "We are planning {t} with {a} and {b} in {p}.",
    "{a} thinks {t} was a waste of time, but I disagree.",
    "Did you hear that {a} moved to {p} in {m}?",
    "My weekend was all about {t}, and {b} joined on Sunday.",
    "{a} and {b} argued about {t} over dinner.",
    "I'm worried about {t}; the deadline in {m} is tight.",
    "{a} recommended a place in {p} for {t}.",
    "Remember when {b} broke {t}? Still funny.",
]
FACTS = [
    ("{a}'s hometown", "{a} grew up in {p}."),
    ("{a} and {t}", "{a} is really into {t}."),
    ("{a}'s birthday", "{a}'s birthday is in {m}."),
    ("{a} in {p}", "{a} spends every {m} in {p}."),
]
QUESTIONS = [
    "What did {a} say about {t}?",
    "Where does {a} spend {m}?",
    "Who went to {p} with {b}?",
    "Why was {a} upset about {t} in {m}?",
    "When is {b}'s birthday, and does {a} know {p}?",
    "Remind me what {a} and {b} planned in {p}.",
]
REPLY = (
    "Here is what I remember.\n<MEMORY_EXTRACT>"
    '{"ops": [{"op": "upsert_node", "label": "benchmark note", "content": "asked again"}]}'
    "</MEMORY_EXTRACT>"
)


def fill(template: str, rng: random.Random) -> str:
    a, b = rng.sample(NAMES, 2)
    return template.format(a=a, b=b, p=rng.choice(PLACES), t=rng.choice(THINGS).strip(), m=rng.choice(MONTHS))


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


async def seed(memory: Memory, scope: Scope, count: int, console: Console) -> None:
    rng = random.Random(7)
    n_turns = count * 7 // 10
    start = time.time() - 365 * 86_400
    turns = [
        ConversationTurn(
            turn_id=f"t{i}", session_id=f"s{i // 100}", speaker=NAMES[i % 2],
            text=fill(rng.choice(TEMPLATES), rng), occurred_at=start + i * 3_000,
        )
        for i in range(n_turns)
    ]  # fmt: skip
    t0 = time.perf_counter()
    for i in range(0, n_turns, 1000):
        await memory.ingest(scope, turns[i : i + 1000])
        console.print(f"  ingested {min(i + 1000, n_turns):,} turns")
    facts = []
    for _ in range(count - n_turns):
        label, content = rng.choice(FACTS)
        a, b = rng.sample(NAMES, 2)
        parts = {"a": a, "b": b, "p": rng.choice(PLACES), "t": rng.choice(THINGS).strip(),
                 "m": rng.choice(MONTHS)}  # fmt: skip
        facts.append(make_node(Layer.SEMANTIC, {"label": label.format(**parts),
                                                "content": content.format(**parts)}))  # fmt: skip
    for i in range(0, len(facts), 500):
        await internals(memory).semantic.add(scope, facts[i : i + 500])
    console.print(f"seeded {count:,} memories in {time.perf_counter() - t0:.0f} s")


async def turns(agent: Agent, scope: Scope, queries: list[str], *, drain: bool) -> list[tuple[AgentResponse, float]]:
    out = []
    sessions = [uuid.uuid4().hex for _ in range(8)]
    for i, query in enumerate(queries):
        t0 = time.perf_counter()
        response = await agent.run(scope, query, session_id=sessions[i % len(sessions)])
        wall = (time.perf_counter() - t0) * 1000.0 - response.timings.model_ms
        out.append((response, wall))
        if drain:
            await agent.drain()
    await agent.drain()
    return out


def _recall_ms(response: AgentResponse, part: str) -> float:
    timings = response.activations[0].details["timings_ms"]
    assert isinstance(timings, dict)
    return float(timings[part])  # type: ignore[arg-type]


def report(console: Console, title: str, results: list[tuple[AgentResponse, float]]) -> None:
    rows: dict[str, list[float]] = {
        "overhead (stages, model excluded)": [r.timings.overhead_ms for r, _ in results],
        "run() wall minus model": [w for _, w in results],
        "  hydrate": [r.timings.stages.get("hydrate", 0.0) for r, _ in results],
        "    outside recall (working, triggers, assembly)": [
            r.timings.stages.get("hydrate", 0.0) - _recall_ms(r, "total_ms") for r, _ in results if r.activations
        ],
        **{
            f"    recall: {part}": [_recall_ms(r, part) for r, _ in results if r.activations]
            for part in ("embed_ms", "candidates_ms", "activation_ms", "scoring_ms", "total_ms")
        },
        "  triage + prompt + session": [
            sum(r.timings.stages.get(s, 0.0) for s in ("triage", "prompt", "session")) for r, _ in results
        ],
        "  extraction + scheduling": [
            r.timings.stages.get("extraction", 0.0) + r.timings.stages.get("schedule", 0.0) for r, _ in results
        ],
        "model (scripted)": [r.timings.model_ms for r, _ in results],
    }
    table = Table(title=title)
    for col in ("ms per turn", "p50", "p95", "p99", "mean", "max"):
        table.add_column(col, justify="right" if col != "ms per turn" else "left")
    for name, values in rows.items():
        table.add_row(
            name, f"{pct(values, 50):.2f}", f"{pct(values, 95):.2f}", f"{pct(values, 99):.2f}",
            f"{statistics.fmean(values):.2f}", f"{max(values):.2f}",
        )  # fmt: skip
    console.print(table)
    errors = sum(len(r.errors) for r, _ in results)
    recalled = statistics.fmean(len(r.activations[0].nodes) for r, _ in results if r.activations)
    console.print(f"{len(results)} turns, {errors} error events, {recalled:.1f} nodes activated")


NAPS_OFF = AgentConfig(consolidation=ConsolidationSettings(quick_naps=False))
"""The agent's config here: quick naps off, so the back-to-back phase measures the turn's own
background work only and its figures compare with the earlier runs of this benchmark."""

PROFILES = {
    "default": RecallConfig(),
    "edges-only": RecallConfig(activation=ActivationConfig(session_seeds=0, cue_seeds=0)),
}
"""Recall settings compared: the defaults, and spreading over memory edges only (no session
or keyword/name cue spreading), the cheaper activation a latency-bound deployment can pick."""


async def main(count: int, n_turns: int, warmup: int, profiles: list[str]) -> None:
    from hippograph.embeddings import default_embedder  # here: the A/B imports this module in older trees

    console = Console()
    scope = Scope.root("org", f"bench-{uuid.uuid4().hex[:6]}").child("user", "u1")
    embedder = default_embedder()  # ONNX Runtime when installed, else torch
    await embedder.embed("warm up the model")
    async with bench_store() as (store, _pid):
        await seed(Memory(store, embedder), scope, count, console)
        rng = random.Random(11)
        queries = list(dict.fromkeys(fill(rng.choice(QUESTIONS), rng) for _ in range(40 * n_turns)))
        per_profile = warmup + 2 * n_turns
        if len(queries) < per_profile * len(profiles):
            raise SystemExit(f"only {len(queries)} distinct queries for {per_profile} turns")
        for n, name in enumerate(profiles):
            memory = Memory(store, embedder, recall_config=PROFILES[name])
            agent = Agent(memory, ScriptedModel([REPLY], cycle=True), NAPS_OFF)
            mine = queries[n * per_profile : (n + 1) * per_profile]
            await turns(agent, scope, mine[:warmup], drain=True)
            isolated = await turns(agent, scope, mine[warmup : warmup + n_turns], drain=True)
            busy = await turns(agent, scope, mine[warmup + n_turns :], drain=False)
            title = f"agent turn at {count:,} memories, recall {name}"
            report(console, f"{title}: isolated", isolated)
            report(console, f"{title}: back-to-back", busy)
        console.print(f"embedder cache hits (background re-embeds of the same note): {embedder.cache_hits}")
        await Memory(store, embedder).forget(scope.parent or scope)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--profiles", default="default,edges-only", help=f"of {', '.join(PROFILES)}")
    args = parser.parse_args()
    asyncio.run(main(args.memories, args.turns, args.warmup, args.profiles.split(",")))
