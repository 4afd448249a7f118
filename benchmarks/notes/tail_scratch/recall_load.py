"""N recalls of recall_ab's kind against the kept server of DATA_DIR (a GC-pause probe)."""
import asyncio, json, sys, time, random
from pathlib import Path
from benchmarks.recall_bench import tree, vocabulary
from benchmarks.recall_profile import HOPS2, NOW
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.engine import RecallEngine
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection
async def main(d, n):
    s = LocalNeo4j(d); state = json.loads((d / 'profile_state.json').read_text())
    conn = await Neo4jConnection.connect(str(s.status().uri), password=s.password(), timeout=900)
    eng = RecallEngine(GraphStore(conn), HashingEmbeddings(), HOPS2); leaves = tree(state['root'])
    vocab = vocabulary(10000); rng = random.Random(5)
    t = time.perf_counter()
    for i in range(n):
        await eng.recall(leaves[i % 100], f"what about {rng.choice(vocab)} and {rng.choice(vocab)}", config=HOPS2, now=NOW)
    print(f"{n} recalls in {time.perf_counter() - t:.1f} s")
    await conn.close()
asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
