"""Scratch: raw vector-index latency 10k/100k and in-index filtered SEARCH exactness, 5.26 vs 2026."""
import asyncio, sys, time, statistics, json
import numpy as np
from servers import server
from hippograph.store import Neo4jConnection

def pct(xs, q): return statistics.quantiles(xs, n=100)[q-1]

async def run(version, data, out):
    s = server(version, data, heap="1500m", pc=1024)
    st = s.status()
    conn = await Neo4jConnection.connect(st.uri, password=s.password())
    d = conn.driver
    async def q(text, **p):
        r, _, _ = await d.execute_query(text, p, database_="neo4j")
        return [x.data() for x in r]
    res = {"version": version}
    if version == "2026":
        await q("CYPHER 25 CREATE VECTOR INDEX vbench IF NOT EXISTS FOR (m:VBench) ON (m.embedding) WITH [m.scope_key] "
                "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}")
    else:
        await q("CREATE VECTOR INDEX vbench IF NOT EXISTS FOR (m:VBench) ON (m.embedding) "
                "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}")
    await q("CREATE INDEX vbench_scope IF NOT EXISTS FOR (m:VBench) ON (m.scope_key)")
    rng = np.random.default_rng(5)
    small = rng.normal(size=(20, 384)).astype(np.float32); small /= np.linalg.norm(small, axis=1, keepdims=True)
    await q("UNWIND $rows AS r CREATE (m:VBench {id: r.id, scope_key: 'small', embedding: r.e})",
            rows=[{"id": f"s{i}", "e": v.tolist()} for i, v in enumerate(small)])
    have = 0
    queries = rng.normal(size=(200, 384)).astype(np.float32); queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    for size in (10_000, 100_000):
        t0 = time.perf_counter()
        while have < size:
            n = min(5000, size - have)
            vecs = rng.normal(size=(n, 384)).astype(np.float32); vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            await q("UNWIND $rows AS r CREATE (m:VBench {id: r.id, scope_key: r.s, embedding: r.e})",
                    rows=[{"id": f"b{have+i}", "s": f"big:{(have+i) % 50}", "e": v.tolist()} for i, v in enumerate(vecs)])
            have += n
        await q("CALL db.awaitIndexes(600)")
        res[f"load_{size}_s"] = time.perf_counter() - t0
        for _ in range(20):
            await q("CALL db.index.vector.queryNodes('vbench', 50, $v) YIELD node, score RETURN node.id AS id, score", v=queries[0].tolist())
        lat = []
        for v in queries:
            t = time.perf_counter()
            await q("CALL db.index.vector.queryNodes('vbench', 50, $v) YIELD node, score RETURN node.id AS id, score", v=v.tolist())
            lat.append((time.perf_counter() - t) * 1000)
        res[f"raw_{size}"] = (pct(lat, 50), pct(lat, 95))
        # brute force over the 20-memory scope (today's exact path)
        lat = []
        for v in queries:
            t = time.perf_counter()
            await q("MATCH (m:VBench) WHERE m.scope_key = 'small' WITH m, vector.similarity.cosine(m.embedding, $v) AS score "
                    "RETURN m.id AS id, score ORDER BY score DESC, id LIMIT 10", v=v.tolist())
            lat.append((time.perf_counter() - t) * 1000)
        res[f"exact_small_{size}"] = (pct(lat, 50), pct(lat, 95))
        lat = []
        for v in queries[:100]:
            t = time.perf_counter()
            await q("MATCH (m:VBench) WHERE m.scope_key = 'big:7' WITH m, vector.similarity.cosine(m.embedding, $v) AS score "
                    "RETURN m.id AS id, score ORDER BY score DESC, id LIMIT 50", v=v.tolist())
            lat.append((time.perf_counter() - t) * 1000)
        res[f"exact_big7_{size}"] = (pct(lat, 50), pct(lat, 95))
        if version == "2026":
            bad = 0; lat = []
            for v in queries:
                exact = await q("MATCH (m:VBench) WHERE m.scope_key = 'small' WITH m, vector.similarity.cosine(m.embedding, $v) AS score "
                                "RETURN m.id AS id ORDER BY score DESC, id LIMIT 10", v=v.tolist())
                t = time.perf_counter()
                got = await q("CYPHER 25 MATCH (m:VBench) SEARCH m IN (VECTOR INDEX vbench FOR $v WHERE m.scope_key = $key LIMIT 10) SCORE AS score "
                              "RETURN m.id AS id, score ORDER BY score DESC, id", v=v.tolist(), key="small")
                lat.append((time.perf_counter() - t) * 1000)
                bad += [r["id"] for r in exact] != [r["id"] for r in got]
            res[f"search_small_{size}"] = (pct(lat, 50), pct(lat, 95)); res[f"search_small_mismatch_{size}"] = bad
            bad = 0; lat = []; overlap = []
            for v in queries[:100]:
                exact = await q("MATCH (m:VBench) WHERE m.scope_key = 'big:7' WITH m, vector.similarity.cosine(m.embedding, $v) AS score "
                                "RETURN m.id AS id ORDER BY score DESC, id LIMIT 50", v=v.tolist())
                t = time.perf_counter()
                got = await q("CYPHER 25 MATCH (m:VBench) SEARCH m IN (VECTOR INDEX vbench FOR $v WHERE m.scope_key = $key LIMIT 50) SCORE AS score "
                              "RETURN m.id AS id, score ORDER BY score DESC, id", v=v.tolist(), key="big:7")
                lat.append((time.perf_counter() - t) * 1000)
                overlap.append(len({r["id"] for r in exact} & {r["id"] for r in got}) / 50)
            res[f"search_big7_{size}"] = (pct(lat, 50), pct(lat, 95)); res[f"search_big7_recall_{size}"] = statistics.mean(overlap)
            # several keys in one statement (a leaf and its ancestors)
            lat = []
            for v in queries[:100]:
                t = time.perf_counter()
                got = await q("CYPHER 25 UNWIND $keys AS key CALL (key) { MATCH (m:VBench) SEARCH m IN (VECTOR INDEX vbench FOR $v WHERE m.scope_key = key LIMIT 50) SCORE AS score RETURN m, score } "
                              "RETURN m.id AS id, score ORDER BY score DESC, id LIMIT 50", v=v.tolist(), keys=["big:7", "small", "big:8", "nothing"])
                lat.append((time.perf_counter() - t) * 1000)
            res[f"search_4keys_{size}"] = (pct(lat, 50), pct(lat, 95))
        print(json.dumps(res), flush=True)
    out.write(json.dumps(res) + "\n")
    await conn.close()
    s.stop()

async def main():
    with open("/tmp/speed/vec_results.jsonl", "a") as out:
        for version in sys.argv[1:]:
            await run(version, f"/tmp/speed/vec{version}", out)
asyncio.run(main())
