"""HNSW settings: insert time and recall@k against exact top-k, same vectors, alternating.

Each config gets its own label and vector index on one server; batches of 1,000 random unit
384-d vectors go to every config in turn (same vectors), then the same queries ask each index
for its top k, compared with numpy's exact top k.
    PYTHONPATH=src:. python benchmarks/notes/writes_scratch/hnsw.py 20000 200
"""
import asyncio, sys, time, statistics
import numpy as np
from hippograph.store import LocalNeo4j, Neo4jConnection

CONFIGS = {  # label: indexConfig extra
    "Hdefault": "",
    "Hef50": ", `vector.hnsw.ef_construction`: 50",
    "Hm8": ", `vector.hnsw.m`: 8",
    "Hnoquant": ", `vector.quantization.enabled`: false",
}

async def main(n, queries):
    server = LocalNeo4j("/tmp/writes/dbh", heap="2g", pagecache_mb=1024, stop_with_parent=True)
    st = server.start(timeout=400)
    conn = await Neo4jConnection.connect(st.uri, password=server.password())
    d = conn.driver
    async def run(text, **p):
        async with d.session() as s:
            r = await s.run(text, p); return [x async for x in r]
    for label, extra in CONFIGS.items():
        await run(f"CREATE VECTOR INDEX idx_{label} IF NOT EXISTS FOR (m:{label}) ON (m.v) OPTIONS {{indexConfig: "
                  f"{{`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'{extra}}}}}")
    await run("CALL db.awaitIndexes(300)")
    rng = np.random.default_rng(3)
    data = rng.normal(size=(n, 384)).astype(np.float32); data /= np.linalg.norm(data, axis=1, keepdims=True)
    times = {k: [] for k in CONFIGS}
    labels = list(CONFIGS)
    for b, start in enumerate(range(0, n, 1000)):
        rows = [{"i": start + i, "v": v.tolist()} for i, v in enumerate(data[start:start + 1000])]
        for label in (labels if b % 2 == 0 else labels[::-1]):
            t = time.perf_counter()
            await run(f"UNWIND $rows AS row CREATE (m:{label} {{i: row.i, v: row.v}})", rows=rows)
            times[label].append(time.perf_counter() - t)
    print({k: f"median {1000*statistics.median(v):.0f} ms / 1,000 (sum {sum(v):.1f} s)" for k, v in times.items()}, flush=True)
    q = rng.normal(size=(queries, 384)).astype(np.float32); q /= np.linalg.norm(q, axis=1, keepdims=True)
    exact = np.argsort(-(q @ data.T), axis=1)
    for k in (10, 50):
        for label in labels:
            hits = []
            for j in range(queries):
                got = await run(f"CALL db.index.vector.queryNodes('idx_{label}', $k, $v) YIELD node RETURN node.i AS i", k=k, v=q[j].tolist())
                hits.append(len({r["i"] for r in got} & set(exact[j, :k].tolist())) / k)
            print(f"k={k} {label}: recall@k {statistics.mean(hits):.4f}", flush=True)
    await conn.close(); server.stop()
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
