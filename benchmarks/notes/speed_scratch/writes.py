"""Scratch: batched-write levers, same server, variants alternated (A B C … A B C …)."""
import asyncio, sys, time, uuid, json, statistics
import numpy as np
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection, migrate
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.cues import cues_of

UNUSED = ["memory_created_at", "memory_occurred_at", "memory_layer", "memory_updated_at"]
VEC = ("CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON (m.embedding) OPTIONS {indexConfig: "
       "{`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'%s}}")
RANGE = {"memory_created_at": "created_at", "memory_occurred_at": "occurred_at", "memory_layer": "layer", "memory_updated_at": "updated_at"}

async def main(count, rounds):
    server = LocalNeo4j("/tmp/speed/dbwrites", heap="1500m", pagecache_mb=1024)
    st = server.start(timeout=400)
    conn = await Neo4jConnection.connect(st.uri, password=server.password())
    await migrate(conn)
    store = GraphStore(conn)
    d = conn.driver
    async def q(text, **p):
        async with d.session() as s:
            r = await s.run(text, p); return await r.data()
    rng = np.random.default_rng(1)
    def make(n, i0):
        v = rng.normal(size=(n, 384)).astype(np.float32); v /= np.linalg.norm(v, axis=1, keepdims=True)
        return [MemoryNode(layer=Layer.EPISODIC, label=f"event {i0+i}", content=f"benchmark memory number {i0+i} about w{i%997} and w{i%991}", embedding=x.tolist()) for i, x in enumerate(v)]
    async def setup(variant):
        await q("MATCH (n) WHERE NOT n:HippographSchema CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS")
        await q("DROP INDEX memory_embedding IF EXISTS")
        for name in UNUSED: await q(f"DROP INDEX {name} IF EXISTS")
        opts = {"hnsw_m8": ", `vector.hnsw.m`: 8", "ef50": ", `vector.hnsw.ef_construction`: 50", "noquant": ", `vector.quantization.enabled`: false", "m8ef50_fewer": ", `vector.hnsw.m`: 8, `vector.hnsw.ef_construction`: 50"}.get(variant, "")
        if variant != "novector":
            await q(VEC % opts)
        if variant not in ("fewer_ranges", "m8ef50_fewer"):
            for name, prop in RANGE.items(): await q(f"CREATE INDEX {name} IF NOT EXISTS FOR (m:Memory) ON (m.{prop})")
        await q("CALL db.awaitIndexes(300)")
        store._known_scopes.clear()
    variants = sys.argv[3].split(",")
    res = {v: [] for v in variants}
    for r in range(rounds):
        for variant in variants:
            await setup(variant)
            batch, conc, cues = 1000, 2, False
            if variant.startswith("batch"): batch = int(variant[5:])
            if variant.startswith("conc"): conc = int(variant[4:])
            if variant == "cues": cues = True
            org = Scope.root("org", f"w{uuid.uuid4().hex[:6]}")
            scopes = [org.child("user", f"u{i}").child("conversation", f"c{j}") for i in range(10) for j in range(10)]
            for s in scopes: await store.ensure_scope(s)
            batches = [(scopes[(i // batch) % len(scopes)], make(min(batch, count - i), i)) for i in range(0, count, batch)]
            sem = asyncio.Semaphore(conc)
            async def write(s, b):
                async with sem:
                    await store.add_nodes(s, b, cues={n.id: cues_of(n) for n in b} if cues else None)
            t0 = time.perf_counter()
            await asyncio.gather(*(write(s, b) for s, b in batches))
            rate = count / (time.perf_counter() - t0)
            res[variant].append(rate)
            print(r, variant, f"{rate:,.0f}/s", flush=True)
    print(json.dumps({v: [round(x) for x in xs] for v, xs in res.items()}))
    base = statistics.median(res[variants[0]])
    for v, xs in res.items(): print(f"{v}: median {statistics.median(xs):,.0f}/s, ratio to {variants[0]} {statistics.median(xs)/base:.2f}")
    await conn.close(); server.stop()
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
