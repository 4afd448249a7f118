"""JVM/Neo4j variants side by side, interleaved: batched memory writes, raw vector query, HNSW population.

    PYTHONPATH=src:.:benchmarks/notes/jvm_scratch python benchmarks/notes/jvm_scratch/jvm_ab.py today,2026_t25v --rounds 5 --per-round 2000 --queries 150 --population 50000 --pop-reps 2
"""
import argparse, asyncio, statistics, time

import numpy as np

from benchmarks.writes_ab import store_workload
from hippograph.store import GraphStore, Neo4jConnection, migrate
from variants import server

def pct(v, q):
    return statistics.quantiles(v, n=100)[q - 1]


async def run(conn, text, **p):
    async with conn.driver.session() as s:
        r = await s.run(text, p)
        return [x async for x in r]


async def write_round(store, seed, count, batch=1000, writers=2):
    """Memories written per second: writes_ab's store workload (same memories, cues, scopes)."""
    done = await store_workload(store, count, batch, writers, seed)
    return count / done["seconds"]


async def main(a):
    names = a.variants.split(",")
    servers, conns, stores = {}, {}, {}
    for n in names:
        s = server(n, f"/tmp/jvm/ab_{n}", heap="1g", pagecache_mb=512)
        st = s.start(timeout=400)
        servers[n] = s
        conns[n] = await Neo4jConnection.connect(st.uri, password=s.password())
        await migrate(conns[n])
        stores[n] = GraphStore(conns[n])
        print(n, st.describe(), flush=True)
    order = lambda i: names if i % 2 == 0 else names[::-1]

    # 1. batched writes (an untimed warm-up round first: JIT)
    for n in names:
        await write_round(stores[n], 99, a.warmup) if a.warmup else None
    rates = {n: [] for n in names}
    for r in range(a.rounds):
        for n in order(r):
            rates[n].append(await write_round(stores[n], 100 + r, a.per_round))
        print("round", r, {n: f"{rates[n][-1]:.0f}/s" for n in names}, flush=True)
    base = names[0]
    for n in names:
        ratios = [x / y for x, y in zip(rates[n], rates[base])]
        print(f"WRITES {n}: " + ", ".join(f"{x:.0f}" for x in rates[n]) + f" /s; median {statistics.median(rates[n]):.0f}/s; "
              f"median ratio to {base} {statistics.median(ratios):.2f}", flush=True)

    # 2. raw vector-index query, k = 50
    counts = {n: (await run(conns[n], "MATCH (m:Memory) RETURN count(m) AS c"))[0]["c"] for n in names}
    rng = np.random.default_rng(7)
    qs = rng.normal(size=(a.queries + 10, 384)).astype(np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    lat = {n: [] for n in names}
    q = "CALL db.index.vector.queryNodes('memory_embedding', 50, $v) YIELD node, score RETURN node.id AS id, score"
    for i, v in enumerate(qs):
        for n in order(i):
            t = time.perf_counter()
            rows = await run(conns[n], q, v=v.tolist())
            dt = time.perf_counter() - t
            if i >= 10:
                lat[n].append(dt * 1000)
            assert len(rows) == 50
    for n in names:
        print(f"RAW k=50 {n} ({counts[n]} memories): p50 {pct(lat[n], 50):.1f} ms, p95 {pct(lat[n], 95):.1f} ms; "
              f"p50 ratio {pct(lat[base], 50) / pct(lat[n], 50):.2f}x, p95 ratio {pct(lat[base], 95) / pct(lat[n], 95):.2f}x faster than {base}", flush=True)

    # 3. HNSW population of a fresh index over N vectors
    data = np.random.default_rng(11).normal(size=(a.population, 384)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    for n in names:
        for s in range(0, a.population, 5000):
            await run(conns[n], "UNWIND $rows AS row CREATE (:P {i: row.i, v: row.v})",
                      rows=[{"i": s + i, "v": v.tolist()} for i, v in enumerate(data[s:s + 5000])])
    pop = {n: [] for n in names}
    create = ("CREATE VECTOR INDEX p_v FOR (p:P) ON (p.v) "
              "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}")
    for rep in range(a.pop_reps):
        for n in order(rep):
            t = time.perf_counter()
            await run(conns[n], create)
            await run(conns[n], "CALL db.awaitIndex('p_v', 1800)")
            pop[n].append(time.perf_counter() - t)
            if rep < a.pop_reps - 1:
                await run(conns[n], "DROP INDEX p_v")
        print("population rep", rep, {n: f"{pop[n][-1]:.1f} s" for n in names}, flush=True)
    for n in names:
        ratios = [y / x for x, y in zip(pop[n], pop[base])]
        print(f"POPULATION {n} ({a.population} vectors): " + ", ".join(f"{x:.1f}" for x in pop[n]) +
              f" s; median ratio (faster than {base}) {statistics.median(ratios):.2f}x", flush=True)
    # recall@10 of the populated index against the exact top 10 (sanity: same quality)
    qv = qs[:40]
    exact = np.argsort(-(qv @ data.T), axis=1)[:, :10]
    for n in names:
        hits = []
        for j, v in enumerate(qv):
            rows = await run(conns[n], "CALL db.index.vector.queryNodes('p_v', 10, $v) YIELD node RETURN node.i AS i", v=v.tolist())
            hits.append(len({r["i"] for r in rows} & set(exact[j].tolist())) / 10)
        print(f"RECALL@10 {n} (50k index, 40 queries): {statistics.mean(hits):.3f}", flush=True)

    for n in names:
        await conns[n].close()
        servers[n].stop()


p = argparse.ArgumentParser()
p.add_argument("variants")
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--per-round", type=int, default=4000)
p.add_argument("--queries", type=int, default=150)
p.add_argument("--population", type=int, default=50000)
p.add_argument("--pop-reps", type=int, default=2)
p.add_argument("--warmup", type=int, default=1000)
asyncio.run(main(p.parse_args()))
