"""Per agent turn: the overhead before the model, Python's collections and the server JVM's
pauses inside it (the agent_ab worker's turns, one process). Usage:
agent_tail.py DATA_DIR TURNS [--freeze]   (the kept agent_ab server must be running)"""
import asyncio, gc, json, random, statistics, sys, time, uuid
from pathlib import Path

from benchmarks.agent_ab import FirstCallTimer, StatementCounter
from benchmarks.agent_bench import QUESTIONS, REPLY, fill
from benchmarks.recall_tail import jcmd, jvm_pauses, pct
from hippograph.agent import Agent, AgentConfig
from hippograph.embeddings import default_embedder
from hippograph.layers import MemoryOrchestrator
from hippograph.llm import ScriptedModel
from hippograph.scope import Scope
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection


async def main(d: Path, turns: int, freeze: bool) -> None:
    server = LocalNeo4j(d)
    status = server.status()
    root = json.loads((d / "agent_ab_state.json").read_text())["root"]
    embedder = default_embedder()
    await embedder.embed("warm up the model")
    counter = StatementCounter()
    counter.install()
    conn = await Neo4jConnection.connect(str(status.uri), password=server.password())
    memory = MemoryOrchestrator(GraphStore(conn), embedder)
    from hippograph.retrieval.queries import RetrievalQuery
    original = conn.read_plain_as
    captured: list = []

    async def traced(query, row, **params):  # the recall statement's parameters and rows, per turn
        t = time.perf_counter()
        out = await original(query, row, **params)
        if query is RetrievalQuery.SEARCH_RECALL:
            r = out[0]
            captured.append({"params": params, "ms": (time.perf_counter() - t) * 1000,
                             "assoc": len(r.associations), "edges": len(r.edges), "nodes": len(r.nodes)})
        return out

    conn.read_plain_as = traced
    timer = FirstCallTimer(ScriptedModel([REPLY], cycle=True), counter)
    agent = Agent(memory, timer, AgentConfig())
    chat = Scope.root("org", root).child("user", "u1").child("chat", f"tail-{uuid.uuid4().hex[:8]}")
    rng = random.Random(1000)
    messages = list(dict.fromkeys(fill(rng.choice(QUESTIONS), rng) for _ in range(40 * turns)))[: turns + 5]
    sessions = [uuid.uuid4().hex for _ in range(4)]
    if freeze:
        gc.collect()
        gc.freeze()
    py: list[tuple[float, float, int]] = []
    started: list[float] = []

    def cb(phase, info):
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            s = started.pop()
            py.append((s, time.perf_counter(), info["generation"]))

    log = d / f"agent-tail-gc-{int(time.time())}.log"
    out = []
    try:
        for i, message in enumerate(messages):
            if i == 5:
                print(jcmd(status.pid, "VM.log", f"output=file={log}", "what=gc=info,safepoint=info", "decorators=timemillis"))
                gc.callbacks.append(cb)
            timer.first = None
            captured.clear()
            w0 = time.time() * 1000
            t0 = time.perf_counter()
            response = await agent.run(chat, message, session_id=sessions[i % len(sessions)])
            t1 = timer.first
            await agent.drain()
            if i < 5:
                continue
            gcs = [(e - s) * 1000 for s, e, g in py if s >= t0 and e <= t1]
            gen2 = [(e - s) * 1000 for s, e, g in py if s >= t0 and e <= t1 and g == 2]
            timings = response.activations[0].details.get("timings_ms") if response.activations else {}
            out.append({"before": (t1 - t0) * 1000, "w0": w0, "w1": w0 + (t1 - t0) * 1000,
                        "py_gc": sum(gcs), "py_gen2": sum(gen2), "n_gen": len(gcs), "recall": timings,
                        "stmt": dict(captured[0]) if captured else None})
    finally:
        gc.callbacks.remove(cb) if cb in gc.callbacks else None
        print(jcmd(status.pid, "VM.log", "disable"))
        await agent.drain()
        await memory.forget(chat)
    async with conn.driver.session(database=conn.database) as session:  # re-run each turn's statement
        for t in out:
            if t["stmt"]:
                xs = []
                for _ in range(3):
                    r = await session.run(RetrievalQuery.SEARCH_RECALL.text, t["stmt"]["params"])
                    s_ = await r.consume()
                    xs.append(float((s_.result_available_after or 0) + (s_.result_consumed_after or 0)))
                t["rerun"] = statistics.median(xs)
    await conn.close()
    pauses = jvm_pauses(log)
    for t in out:
        t["jvm"] = sum(ms for end, ms, _ in pauses if t["w0"] <= end <= t["w1"] + 1)
    b = [t["before"] for t in out]
    print(f"{len(out)} turns (freeze={freeze}): before the model p50 {pct(b, 50):.1f}, p90 {pct(b, 90):.1f}, p95 {pct(b, 95):.1f} ms")
    print(f"turns with a full Python collection inside: {sum(1 for t in out if t['py_gen2'])}, "
          f"its ms p50 {statistics.median([t['py_gen2'] for t in out if t['py_gen2']] or [0]):.1f}")
    print(f"turns with a JVM pause inside: {sum(1 for t in out if t['jvm'])}; JVM pauses in the run: {len(pauses)}, "
          f"{sorted(round(ms, 1) for _, ms, _ in pauses)}")
    print("slowest turns: before ms | Python GC ms (full) | JVM pause ms | recall total_ms | statement ms | re-run server ms | association rows")
    for t in sorted(out, key=lambda t: -t["before"])[:12]:
        st = t["stmt"] or {}
        print(f"  {t['before']:7.1f} | {t['py_gc']:6.1f} ({t['py_gen2']:5.1f}) | {t['jvm']:6.1f} | {(t['recall'] or {}).get('total_ms', 0):7.1f}"
              f" | {st.get('ms', 0):6.1f} | {t.get('rerun', 0):6.1f} | {st.get('assoc', 0)}")
    fast = sorted(out, key=lambda t: t["before"])[: len(out) // 2]
    slow = sorted(out, key=lambda t: -t["before"])[: max(1, len(out) // 10)]
    for name, grp in (("fastest half", fast), ("slowest 10 %", slow)):
        g = [t for t in grp if t["stmt"]]
        print(f"{name}: re-run server ms mean {statistics.fmean(t['rerun'] for t in g):.1f}, association rows mean "
              f"{statistics.fmean(t['stmt']['assoc'] for t in g):.0f}, edge arrivals {statistics.fmean(t['stmt']['edges'] for t in g):.0f}")
    rest = [t["before"] - t["py_gc"] - t["jvm"] for t in out]
    print(f"before the model minus Python GC and JVM pauses inside: p50 {pct(rest, 50):.1f}, p95 {pct(rest, 95):.1f} ms")


asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2]), "--freeze" in sys.argv))
