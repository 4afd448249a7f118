"""Where a batch's time goes: client prep, each statement's server time, commit; PROFILE db hits."""
import asyncio, sys, time, uuid, json
import numpy as np

from hippograph.store import LocalNeo4j, Neo4jConnection, migrate, GraphStore
from hippograph.store.queries import MemoryQuery as Q
from hippograph.store.mapping import node_to_props, layer_label
from hippograph.cues import cues_of
from hippograph.models import Layer, MemoryNode, now
from hippograph.scope import Scope

class Quiet(list):
    def __repr__(self): return f"<{len(self)}>"

async def main():
    server = LocalNeo4j("/tmp/writes/db1", heap="2g", pagecache_mb=1024, stop_with_parent=True)
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
    # populate a bit
    for k in range(int(sys.argv[1])):
        b = batch(k * 1000)
        await store.add_nodes(scopes[k % 100], b, cues={n.id: cues_of(n) for n in b})
    print("populated", flush=True)
    d = conn.driver
    for rep in range(int(sys.argv[2])):
        scope = scopes[(50 + rep) % 100]
        nodes = batch(100000 + rep * 1000)
        t0 = time.perf_counter()
        rows = [{"id": n.id, "layer_label": layer_label(n.layer), "props": node_to_props(n.model_copy(update={"scope_key": scope.key}), scope)} for n in nodes]
        cue_rows = [{"id": n.id, "cues": [c.row() for c in cues_of(n)]} for n in nodes]
        t1 = time.perf_counter()
        token = uuid.uuid4().hex
        prof = rep == 0
        async with d.session() as s:
            tx = await s.begin_transaction()
            ta = time.perf_counter()
            r = await tx.run(("PROFILE " if prof else "") + Q.UPSERT_NODES.text, scope_key=scope.key, rows=Quiet(rows), tx_token=token)
            recs = [x async for x in r]; summ = await r.consume()
            tb = time.perf_counter()
            if prof: p1 = summ.profile
            r = await tx.run(("PROFILE " if prof else "") + Q.UPSERT_CUES.text, scope_key=scope.key, rows=Quiet(cue_rows), now=now(), tx_token=token)
            summ2 = await r.consume()
            tc = time.perf_counter()
            await tx.commit()
            td = time.perf_counter()
        print(f"rep {rep}: prep {1000*(t1-t0):.0f} ms, upsert_nodes {1000*(tb-ta):.0f} ms, upsert_cues {1000*(tc-tb):.0f} ms, commit {1000*(td-tc):.0f} ms; server-reported {summ.result_available_after}+{summ.result_consumed_after} / {summ2.result_available_after}+{summ2.result_consumed_after}", flush=True)
        if prof:
            def walk(p, depth=0, out=None):
                out = out if out is not None else []
                out.append(("  "*depth + p["operatorType"], p.get("dbHits", 0), p.get("rows", 0), p.get("time", 0)))
                for c in p.get("children", []): walk(c, depth+1, out)
                return out
            for name, p in (("upsert_nodes", p1), ("upsert_cues", summ2.profile)):
                ops = walk(p)
                print(name, "total db hits", sum(o[1] for o in ops))
                for o in ops: print(f"   {o[0]:50s} hits {o[1]:8d} rows {o[2]:7d} time {o[3]/1e6 if o[3] else 0:.1f} ms")
    await conn.close(); server.stop()
asyncio.run(main())
