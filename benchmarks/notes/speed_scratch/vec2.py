"""Scratch: 5.26 vs 2026 side by side (both servers up, queries interleaved) on the loaded vec data."""
import asyncio, time, statistics, json
import numpy as np
from servers import server
from hippograph.store import Neo4jConnection
def pct(xs, q): return statistics.quantiles(xs, n=100)[q-1]
RAW = "CALL db.index.vector.queryNodes('vbench', 50, $v) YIELD node, score RETURN node.id AS id, score"
EXACT = ("MATCH (m:VBench) WHERE m.scope_key = $key WITH m, vector.similarity.cosine(m.embedding, $v) AS score "
         "RETURN m.id AS id, score ORDER BY score DESC, id LIMIT $k")
SCOPED = ("CALL db.index.vector.queryNodes('vbench', $fetch, $v) YIELD node, score WHERE node.scope_key = $key "
          "RETURN node.id AS id, score ORDER BY score DESC, id LIMIT $k")
SEARCH = ("CYPHER 25 MATCH (m:VBench) SEARCH m IN (VECTOR INDEX vbench FOR $v WHERE m.scope_key = $key LIMIT $lim) SCORE AS score "
          "RETURN m.id AS id, score ORDER BY score DESC, id LIMIT $k")
async def main():
    s26 = server("2026", "/tmp/speed/vec2026", heap="1500m", pc=1024)
    s5 = server("526", "/tmp/speed/vec526", heap="1500m", pc=1024)
    c26 = await Neo4jConnection.connect(s26.status().uri, password=s26.password())
    c5 = await Neo4jConnection.connect(s5.status().uri, password=s5.password())
    async def q(c, text, **p):
        r, _, _ = await c.driver.execute_query(text, p, database_="neo4j"); return [x.data() for x in r]
    n = [(await q(c, "MATCH (m:VBench) RETURN count(m) AS n"))[0]["n"] for c in (c5, c26)]
    print("nodes", n)
    rng = np.random.default_rng(9)
    qs = rng.normal(size=(120, 384)).astype(np.float32); qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    lat = {k: [] for k in ("raw 5.26", "raw 2026", "small exact 5.26", "small SEARCH 2026", "big7 today 5.26", "big7 SEARCH 2026 lim50", "big7 SEARCH 2026 lim200")}
    rec = {"big7 today 5.26": [], "big7 SEARCH 2026 lim50": [], "big7 SEARCH 2026 lim200": []}; small_bad = 0
    async def timed(name, c, text, **p):
        t = time.perf_counter(); r = await q(c, text, **p); lat[name].append((time.perf_counter() - t) * 1000); return r
    for i, v in enumerate(qs):
        v = v.tolist()
        if i < 20:
            for c in (c5, c26): await q(c, RAW, v=v)
            continue
        await timed("raw 5.26", c5, RAW, v=v); await timed("raw 2026", c26, RAW, v=v)
        ex = await timed("small exact 5.26", c5, EXACT, v=v, key="small", k=10)
        se = await timed("small SEARCH 2026", c26, SEARCH, v=v, key="small", k=10, lim=10)
        small_bad += [r["id"] for r in ex] != [r["id"] for r in se]
        truth = {r["id"] for r in await q(c5, EXACT, v=v, key="big:7", k=50)}
        t = time.perf_counter()
        got = []
        for fetch in (100, 800):
            got = await q(c5, SCOPED, v=v, key="big:7", k=50, fetch=fetch)
            if len(got) >= 50: break
        else:
            got = await q(c5, EXACT, v=v, key="big:7", k=50)
        lat["big7 today 5.26"].append((time.perf_counter() - t) * 1000); rec["big7 today 5.26"].append(len(truth & {r["id"] for r in got}) / 50)
        for lim in (50, 200):
            got = await timed(f"big7 SEARCH 2026 lim{lim}", c26, SEARCH, v=v, key="big:7", k=50, lim=lim)
            rec[f"big7 SEARCH 2026 lim{lim}"].append(len(truth & {r["id"] for r in got}) / 50)
    for k, xs in lat.items():
        extra = f", recall@50 vs exact {statistics.mean(rec[k]):.3f}" if k in rec else ""
        print(f"{k}: p50 {pct(xs,50):.1f} / p95 {pct(xs,95):.1f} ms{extra}")
    print("small scope (20 of", n[1], "): SEARCH top-10 != exact top-10 in", small_bad, "of", len(qs) - 20)
    await c26.close(); await c5.close()
asyncio.run(main())
