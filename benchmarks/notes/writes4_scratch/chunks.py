"""Ingest rate (excl. embedding) with chunk sizes alternating, same server, fresh scopes."""
import asyncio, json, sys, statistics, functools
from benchmarks import writes_ab
from hippograph.store import Neo4jConnection, GraphStore, migrate
from hippograph.embeddings import HashingEmbeddings
from hippograph.layers import ingest as I, orchestrator as O
from benchmarks.locomo.dataset import DEFAULT_PATH
orig = I.ingest_conversation
async def main(sizes, reps, turns):
    c = json.load(open("/tmp/writes4/conn.json"))
    conn = await Neo4jConnection.connect(c["uri"], password=c["password"])
    await migrate(conn)
    store = GraphStore(conn)
    conv = writes_ab.locomo_turns(DEFAULT_PATH, turns)
    res = {s: [] for s in sizes}
    for r in range(reps):
        for size in (sizes if r % 2 == 0 else sizes[::-1]):
            O.ingest_conversation = functools.partial(orig, batch_size=size)
            out = await writes_ab.ingest_workload(store, HashingEmbeddings(), conv)
            res[size].append(out["count"] / (out["seconds"] - out["embed_seconds"]))
            print(f"rep {r} batch {size}: {res[size][-1]:.0f}/s", flush=True)
    for s in sizes: print(f"batch {s}: median {statistics.median(res[s]):.0f}/s {[round(x) for x in res[s]]}")
    await conn.close()
asyncio.run(main([int(x) for x in sys.argv[1].split(",")], int(sys.argv[2]), int(sys.argv[3])))
