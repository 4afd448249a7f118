"""Wall time of each store call during the ingest / store workloads (instrumented connection)."""
import asyncio, json, sys, time, collections
from benchmarks import writes_ab
from hippograph.store import Neo4jConnection, GraphStore, migrate
from hippograph.store import connection as C
from hippograph.embeddings import HashingEmbeddings
from benchmarks.locomo.dataset import DEFAULT_PATH
T = collections.defaultdict(lambda: [0, 0.0])
orig_managed, orig_wtx = C.Neo4jConnection._managed, C.Neo4jConnection.write_tx
async def managed(self, query, params, **kw):
    t = time.perf_counter()
    try: return await orig_managed(self, query, params, **kw)
    finally: T[query.name][0] += 1; T[query.name][1] += time.perf_counter() - t
async def wtx(self, work):
    t = time.perf_counter()
    try: return await orig_wtx(self, work)
    finally: T["write_tx"][0] += 1; T["write_tx"][1] += time.perf_counter() - t
C.Neo4jConnection._managed, C.Neo4jConnection.write_tx = managed, wtx
async def main(workload, n):
    c = json.load(open("/tmp/writes4/conn.json"))
    conn = await Neo4jConnection.connect(c["uri"], password=c["password"])
    await migrate(conn); T.clear()
    store = GraphStore(conn)
    if workload == "store": out = await writes_ab.store_workload(store, n, 1000, 1, 7)
    else: out = await writes_ab.ingest_workload(store, HashingEmbeddings(), writes_ab.locomo_turns(DEFAULT_PATH, n))
    print(workload, out, f"{out['count'] / (out['seconds'] - out['embed_seconds']):.0f}/s")
    for k, (n_, s) in sorted(T.items(), key=lambda x: -x[1][1]): print(f"  {k:28s} {n_:5d} calls {s:7.2f} s")
    await conn.close()
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
