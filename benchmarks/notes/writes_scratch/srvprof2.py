"""Where a 1,000-memory batch's time goes with the new write path: Python (cues, rows), the
statement, the commit; commit with / without the vector and fulltext indexes (alternating)."""
import asyncio, sys, time, uuid, statistics
import numpy as np
from hippograph.store import LocalNeo4j, Neo4jConnection, migrate, GraphStore
from hippograph.store.queries import MemoryQuery as Q, SchemaQuery as S
from hippograph.store.mapping import upsert_rows
from hippograph.store.connection import unprinted
from hippograph.cues import cues_of
from hippograph.models import Layer, MemoryNode, now
from hippograph.scope import Scope

async def main(populate, reps):
    server = LocalNeo4j("/tmp/writes/db2", heap="2g", pagecache_mb=1024, stop_with_parent=True)
    st = server.start(timeout=400)
    conn = await Neo4jConnection.connect(st.uri, password=server.password())
    await migrate(conn)
    store = GraphStore(conn)
    rng = np.random.default_rng(1)
    words = [f"topic{i} Ann{i % 7}" for i in range(500)]
    org = Scope.root("org", f"b{uuid.uuid4().hex[:6]}")
    scopes = [org.child("user", f"u{i}").child("conversation", f"c{j}") for i in range(10) for j in range(10)]
    for s in scopes: await store.ensure_scope(s)
    def batch(start, n=1000):
        vecs = rng.normal(size=(n, 384)).astype(np.float32); vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        return [MemoryNode(layer=Layer.EPISODIC, label=f"event {start+i}", content=f"benchmark memory number {start+i} about {words[(start+i)%500]}", session_id=f"s{(start+i)//20}", embedding=v.tolist()) for i, v in enumerate(vecs)]
    for k in range(populate):
        b = batch(k * 1000)
        await store.add_nodes(scopes[k % 100], b, cues={n.id: cues_of(n) for n in b})
    print("populated", populate * 1000, flush=True)
    d = conn.driver
    async def ddl(text):
        async with d.session() as s: await (await s.run(text)).consume()
    variants = ["all", "no_vector", "no_fulltext", "no_vector_no_fulltext"]
    res = {v: {"py": [], "stmt": [], "commit": []} for v in variants}
    for rep in range(reps):
        for v in variants:
            await ddl("DROP INDEX memory_embedding IF EXISTS"); await ddl("DROP INDEX memory_text IF EXISTS")
            if "no_vector" not in v: await ddl(S.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING.text)
            if "no_fulltext" not in v: await ddl(S.CREATE_FULLTEXT_INDEX_MEMORY_TEXT.text)
            await ddl("CALL db.awaitIndexes(600)")
            scope = scopes[(50 + rep) % 100]
            nodes = batch(10**6 + rep * 10000 + variants.index(v) * 1000)
            t0 = time.perf_counter()
            stored = [n.model_copy(update={"scope_key": scope.key}) for n in nodes]
            rows, table = upsert_rows(scope, stored, {n.id: cues_of(n) for n in stored})
            params = unprinted({"scope_key": scope.key, "rows": rows, "cues": table, "now": now()})
            t1 = time.perf_counter()
            async with d.session() as s:
                tx = await s.begin_transaction()
                ta = time.perf_counter()
                r = await tx.run(("PROFILE " if rep == 0 and v == "all" else "") + Q.UPSERT_NODES.text, params, tx_token=uuid.uuid4().hex)
                recs = [x async for x in r]; summ = await r.consume()
                tb = time.perf_counter()
                await tx.commit()
                tc = time.perf_counter()
            res[v]["py"].append(t1 - t0); res[v]["stmt"].append(tb - ta); res[v]["commit"].append(tc - tb)
            print(f"rep {rep} {v}: python {1000*(t1-t0):.0f} ms, statement {1000*(tb-ta):.0f} ms (server {summ.result_available_after}+{summ.result_consumed_after}), commit {1000*(tc-tb):.0f} ms", flush=True)
            if rep == 0 and v == "all":
                def walk(p, depth=0, out=None):
                    out = out if out is not None else []
                    out.append(("  "*depth + p["operatorType"], p.get("dbHits", 0), p.get("rows", 0)))
                    for c in p.get("children", []): walk(c, depth+1, out)
                    return out
                ops = walk(summ.profile)
                print("upsert_nodes PROFILE: total db hits", sum(o[1] for o in ops))
                for o in ops: print(f"   {o[0]:55s} hits {o[1]:8d} rows {o[2]:7d}")
    print("medians (ms):")
    for v in variants:
        print(f"  {v:24s} python {1000*statistics.median(res[v]['py']):6.0f}  statement {1000*statistics.median(res[v]['stmt']):6.0f}  commit {1000*statistics.median(res[v]['commit']):6.0f}")
    await conn.close(); server.stop()
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
