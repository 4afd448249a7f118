"""Where the agent's time before the model goes, in the tree on ``sys.path``.

Uses the server and data that ``agent_ab`` keeps in ``--data-dir`` (run it once first). Runs
``--turns`` agent turns (default config with quick naps off, background drained after each, untimed) in a fresh
chat scope below the seeded user (in ``agent_ab --shape realtext``'s folder: a fresh chat below
each leaf in turn, asking that leaf's questions), and reports the overhead before the model (as ``agent_ab``
defines it), every Cypher statement before the model with its time (by query file), and,
with ``--cprofile``, the top functions by cumulative time over the pre-model part of the turns.

    PYTHONPATH=src python -m benchmarks.agent_profile --turns 30 [--cprofile] [--recall edges-only]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import io
import json
import pstats
import random
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks import bench_dir
from benchmarks.agent_ab import FirstCallTimer, StatementCounter, pct, realtext_messages
from benchmarks.agent_bench import PROFILES, QUESTIONS, REPLY, fill
from hippograph.agent import Agent, AgentConfig, ConsolidationSettings
from hippograph.dbms import LocalNeo4j
from hippograph.embeddings import default_embedder
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection


class TimedStatements:
    """Times every managed statement by query file (patched on the connection class)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float, float]] = []  # (query, start, ms)

    def install(self) -> None:
        original = Neo4jConnection._managed
        timed = self

        async def managed(self: Neo4jConnection, query: Any, params: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return await original(self, query, params, **kw)
            finally:
                timed.calls.append((query.path, t, (time.perf_counter() - t) * 1000.0))

        Neo4jConnection._managed = managed  # type: ignore[method-assign]


async def main(data_dir: Path, n_turns: int, warmup: int, profile: bool, recall: str) -> None:
    console = Console()
    realtext = data_dir / "realtext_state.json"
    state = json.loads((realtext if realtext.exists() else data_dir / "agent_ab_state.json").read_text())
    server = LocalNeo4j(data_dir)
    status = server.start(timeout=300)
    assert status.uri
    embedder = default_embedder()
    await embedder.embed("warm up the model")
    counter = StatementCounter()
    counter.install()
    timed = TimedStatements()
    timed.install()
    conn = await Neo4jConnection.connect(status.uri, password=server.password())
    memory = Memory(GraphStore(conn), embedder, recall_config=PROFILES[recall])
    timer = FirstCallTimer(ScriptedModel([REPLY], cycle=True), counter)
    agent = Agent(memory, timer, AgentConfig(consolidation=ConsolidationSettings(quick_naps=False)))  # naps off
    chat_id = f"p-{uuid.uuid4().hex[:8]}"
    if realtext.exists():  # agent_ab --shape realtext's folder: each turn below a leaf, its own question
        turns = [(leaf.child("chat", chat_id), q) for leaf, q in realtext_messages(state, 0, n_turns + warmup)]
    else:
        chat = Scope.root("org", state["root"]).child("user", "u1").child("chat", chat_id)
        rng = random.Random(77)
        messages = list(dict.fromkeys(fill(rng.choice(QUESTIONS), rng) for _ in range(40 * (n_turns + warmup))))
        turns = [(chat, m) for m in messages[: n_turns + warmup]]
    sessions = [uuid.uuid4().hex for _ in range(4)]
    before: list[float] = []
    by_query: dict[str, list[float]] = collections.defaultdict(list)
    profiler = cProfile.Profile()
    try:
        for i, (chat, message) in enumerate(turns):
            timer.first = None
            mark = len(timed.calls)
            t0 = time.perf_counter()
            if profile and i >= warmup:
                profiler.enable()
            await agent.run(chat, message, session_id=sessions[i % len(sessions)])
            profiler.disable()
            assert timer.first is not None
            await agent.drain()
            if i < warmup:
                continue
            before.append((timer.first - t0) * 1000.0)
            for name, start, ms in timed.calls[mark:]:
                if start < timer.first:
                    by_query[name].append(ms)
    finally:
        await agent.drain()
        for chat in dict.fromkeys(c for c, _ in turns):
            await memory.forget(chat)
        await conn.close()
    where = "real text" if realtext.exists() else f"{state['memories']:,} memories"
    title = f"{n_turns} turns at {where}, recall {recall}: before the model, by statement"
    table = Table(title=title)
    for col in ("what", "per turn", "p50 ms", "p95 ms", "mean ms"):
        table.add_column(col)
    table.add_row("overhead before the model", "", f"{pct(before, 50):.1f}", f"{pct(before, 95):.1f}",
                  f"{statistics.fmean(before):.1f}")  # fmt: skip
    for name, xs in sorted(by_query.items(), key=lambda kv: -sum(kv[1])):
        table.add_row(f"  {name}", f"{len(xs) / n_turns:.2f}", f"{pct(xs, 50):.1f}", f"{pct(xs, 95):.1f}",
                      f"{statistics.fmean(xs):.1f}")  # fmt: skip
    console.print(table)
    if profile:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(45)
        console.print(out.getvalue())


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=bench_dir("agent-ab"))
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=6)
    ap.add_argument("--cprofile", action="store_true")
    ap.add_argument("--recall", default="default", choices=sorted(PROFILES), help="recall settings (agent_bench)")
    a = ap.parse_args()
    asyncio.run(main(a.data_dir, a.turns, a.warmup, a.cprofile, a.recall))
