import asyncio, cProfile, pstats, json, sys, time, argparse
from benchmarks import writes_ab
from hippograph.store import Neo4jConnection, GraphStore, migrate
from hippograph.embeddings import HashingEmbeddings
from pathlib import Path
from benchmarks.locomo.dataset import DEFAULT_PATH

async def main(workload, n):
    c = json.load(open("/tmp/writes4/conn.json"))
    conn = await Neo4jConnection.connect(c["uri"], password=c["password"])
    await migrate(conn)
    store = GraphStore(conn)
    pr = cProfile.Profile()
    if workload == "store":
        pr.enable(); out = await writes_ab.store_workload(store, n, 1000, 2, 7); pr.disable()
    else:
        conv = writes_ab.locomo_turns(DEFAULT_PATH, n)
        pr.enable(); out = await writes_ab.ingest_workload(store, HashingEmbeddings(), conv); pr.disable()
    print(out, out["count"] / (out["seconds"] - out["embed_seconds"]))
    pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)
    await conn.close()
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
