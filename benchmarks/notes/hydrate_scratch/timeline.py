"""Per agent turn, before the model: when each statement and the query embedding start and end
(ms from the turn's start), each statement's server time, and the loop's Python time in between.
Usage: timeline.py DATA_DIR TURNS   (a server must be serving DATA_DIR; agent_ab's seeded store)"""
import asyncio, json, random, statistics, sys, time, uuid
from collections import defaultdict
from pathlib import Path

from benchmarks.agent_ab import FirstCallTimer, StatementCounter
from benchmarks.agent_bench import QUESTIONS, REPLY, fill
from hippograph.agent import Agent, AgentConfig
from hippograph.embeddings import default_embedder
from hippograph.layers import MemoryOrchestrator
from hippograph.llm import ScriptedModel
from hippograph.scope import Scope
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection
from hippograph.store import connection as connmod


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))] if xs else 0.0


async def main(d: Path, turns: int) -> None:
    server = LocalNeo4j(d)
    status = server.status()
    root = json.loads((d / "agent_ab_state.json").read_text())["root"]
    embedder = default_embedder()
    await embedder.embed("warm up the model")
    events: list[tuple[str, float, float, float]] = []  # name, start, end, server ms
    original_embed = embedder.embed

    async def embed(text):
        s = time.perf_counter()
        out = await original_embed(text)
        events.append(("embed", s, time.perf_counter(), 0.0))
        return out

    embedder.embed = embed
    Orig = connmod.Neo4jConnection._managed

    async def managed(self, query, params, *, write, plain=False):
        s = time.perf_counter()
        text = query.text
        params = connmod.unprinted(params)
        srv = [0.0]

        async def work(tx):
            result = await tx.run(text, params)
            rows = [dict(r) async for r in result] if plain else [r.data() async for r in result]
            summ = await result.consume()
            srv[0] = float((summ.result_available_after or 0) + (summ.result_consumed_after or 0))
            return rows

        out = await self._guard(self._session_call(work, write=write))
        events.append((getattr(query, "name", str(query)), s, time.perf_counter(), srv[0]))
        return out

    connmod.Neo4jConnection._managed = managed
    counter = StatementCounter()
    counter.install()
    conn = await Neo4jConnection.connect(str(status.uri), password=server.password())
    memory = MemoryOrchestrator(GraphStore(conn), embedder)
    timer = FirstCallTimer(ScriptedModel([REPLY], cycle=True), counter)
    agent = Agent(memory, timer, AgentConfig())
    chat = Scope.root("org", root).child("user", "u1").child("chat", f"tl-{uuid.uuid4().hex[:8]}")
    rng = random.Random(2000)
    messages = list(dict.fromkeys(fill(rng.choice(QUESTIONS), rng) for _ in range(40 * turns)))[: turns + 5]
    sessions = [uuid.uuid4().hex for _ in range(4)]
    per = defaultdict(lambda: defaultdict(list))
    befores = []
    try:
        for i, message in enumerate(messages):
            timer.first = None
            events.clear()
            t0 = time.perf_counter()
            await agent.run(chat, message, session_id=sessions[i % len(sessions)])
            t1 = timer.first
            mine = [e for e in events if e[2] <= t1]
            await agent.drain()
            if i < 5:
                continue
            befores.append((t1 - t0) * 1000)
            for name, s, e, srv in mine:
                p = per[name]
                p["start"].append((s - t0) * 1000)
                p["end"].append((e - t0) * 1000)
                p["wall"].append((e - s) * 1000)
                p["server"].append(srv)
    finally:
        await agent.drain()
        await memory.forget(chat)
        await conn.close()
    print(f"{len(befores)} turns: before the model p50 {pct(befores, 50):.1f} p95 {pct(befores, 95):.1f} ms")
    print(f"{'before the model':28s} {'n/turn':>6s} {'start p50':>9s} {'end p50':>8s} {'end p95':>8s} {'wall p50':>8s} {'wall p95':>8s} {'server p50':>10s} {'server p95':>10s}")
    for name, p in sorted(per.items(), key=lambda kv: statistics.median(kv[1]["start"])):
        print(f"{name:28s} {len(p['wall']) / len(befores):6.2f} {pct(p['start'], 50):9.1f} {pct(p['end'], 50):8.1f} {pct(p['end'], 95):8.1f}"
              f" {pct(p['wall'], 50):8.1f} {pct(p['wall'], 95):8.1f} {pct(p['server'], 50):10.1f} {pct(p['server'], 95):10.1f}")


asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
