import asyncio, sys, time, uuid, statistics
from pathlib import Path
import numpy as np
from hippograph.store import LocalNeo4j, Neo4jConnection, migrate, GraphStore
from hippograph.store.mapping import upsert_rows, node_to_props, layer_label
from hippograph.store.connection import unprinted
from hippograph.cues import cues_of
from hippograph.models import Layer, MemoryNode, now
from hippograph.scope import Scope
Q = {n: open(Path(__file__).parent / "q" / f"{n}.cypher").read() for n in ["old_nodes", "old_cues", "new", "nodes_only", "old_nodes_create", "agg_cues"]}
async def main(populate, reps, commit):
    server = LocalNeo4j("/tmp/writes/db3", heap="2g", pagecache_mb=1024, stop_with_parent=True)
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
        b = batch(k * 1000); await store.add_nodes(scopes[k % 100], b, cues={n.id: cues_of(n) for n in b})
    print("populated", flush=True)
    d = conn.driver
    variants = ["old", "new", "nodes_only", "old_nodes_create", "split_agg"]
    res = {v: [] for v in variants}
    for rep in range(reps):
        for v in (variants if rep % 2 == 0 else variants[::-1]):
            scope = scopes[(50 + rep) % 100]
            nodes = [n.model_copy(update={"scope_key": scope.key}) for n in batch(10**6 + rep * 10000 + variants.index(v) * 1000)]
            cues = {n.id: cues_of(n) for n in nodes}
            rows, table = upsert_rows(scope, nodes, cues)
            tok = uuid.uuid4().hex
            async with d.session() as s:
                tx = await s.begin_transaction()
                t0 = time.perf_counter()
                if v == "old":
                    orows = [{"id": n.id, "layer_label": layer_label(n.layer), "props": node_to_props(n, scope)} for n in nodes]
                    await (await tx.run(Q["old_nodes"], unprinted({"scope_key": scope.key, "rows": orows, "tx_token": tok}))).consume()
                    crow = [{"id": n.id, "cues": [c.row() for c in cues[n.id]]} for n in nodes]
                    await (await tx.run(Q["old_cues"], unprinted({"scope_key": scope.key, "rows": crow, "now": now(), "tx_token": tok}))).consume()
                elif v == "split_agg":
                    await (await tx.run(Q["old_nodes_create"], unprinted({"scope_key": scope.key, "rows": rows, "tx_token": tok}))).consume()
                    links = [{"id": r["id"], "cue": i} for r in rows for i in r["cues"]]
                    await (await tx.run(Q["agg_cues"], unprinted({"scope_key": scope.key, "cues": table, "links": links, "now": now(), "tx_token": tok}))).consume()
                else:
                    await (await tx.run(Q[v], unprinted({"scope_key": scope.key, "rows": rows, "cues": table, "now": now(), "tx_token": tok}))).consume()
                t1 = time.perf_counter()
                if commit: await tx.commit()
                else: await tx.rollback()
            res[v].append(t1 - t0)
            print(rep, v, f"{1000*(t1-t0):.0f} ms", flush=True)
    for v in variants: print(f"{v:18s} median {1000*statistics.median(res[v]):.0f} ms  all {[round(1000*x) for x in res[v]]}")
    await conn.close(); server.stop()
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "commit"))
