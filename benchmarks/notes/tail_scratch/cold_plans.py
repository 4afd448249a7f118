"""The first N recalls on a kept server: how many took over 1 s (a statement planned for a new mix of parameter types)."""
import asyncio, json, sys, time, random
from pathlib import Path
from benchmarks.recall_bench import tree, vocabulary
from benchmarks.recall_profile import HOPS2, NOW
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.engine import RecallEngine
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection
async def main(d, n):
    s = LocalNeo4j(d, heap="1g", pagecache_mb=512); st = s.start(timeout=900)
    state = json.loads((d / 'profile_state.json').read_text())
    conn = await Neo4jConnection.connect(str(st.uri), password=s.password(), timeout=900)
    eng = RecallEngine(GraphStore(conn), HashingEmbeddings(), HOPS2); leaves = tree(state['root'])
    vocab = vocabulary(10000); rng = random.Random(5); slow = []
    for i in range(n):  # each leaf twice: population counted in the statement, then cached
        t = time.perf_counter()
        await eng.recall(leaves[i // 2], f"what about {rng.choice(vocab)} and {rng.choice(vocab)}", config=HOPS2, now=NOW)
        ms = (time.perf_counter() - t) * 1000
        if ms > 1000: slow.append((i, round(ms)))
    print(f"{d.name}: {len(slow)} of the first {n} recalls over 1 s: {slow}")
    await conn.close()
asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
