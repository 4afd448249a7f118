"""Per-batch phases of the store write (1,000 memories), variants alternating, committed."""
import asyncio, sys, time, uuid, statistics, json
import numpy as np
from hippograph.store import Neo4jConnection, migrate, GraphStore
from hippograph.store.queries import MemoryQuery as Q
from hippograph.store.mapping import upsert_rows
from hippograph.store.connection import unprinted
from hippograph.cues import cues_of
from hippograph.models import Layer, MemoryNode, now
from hippograph.scope import Scope
from benchmarks.store_bench import memory_batches

TEXT = Q.UPSERT_NODES.text
NO_PROC = TEXT.replace("m = props {.*, embedding: null}", "m = props").replace(
    "WHERE created AND row.props.embedding IS NOT NULL", "WHERE false")
VARIANTS = {"current": TEXT}
for extra in sys.argv[3:]:
    VARIANTS[extra.split("=")[0]] = open(extra.split("=")[1]).read()

async def main(populate, reps):
    c = json.load(open("/tmp/writes4/conn.json"))
    conn = await Neo4jConnection.connect(c["uri"], password=c["password"])
    await migrate(conn)
    store = GraphStore(conn)
    rng = np.random.default_rng(1)
    words = [f"topic{i} Ann{i % 7}" for i in range(500)]
    org = Scope.root("org", f"b{uuid.uuid4().hex[:6]}")
    scopes = [org.child("user", f"u{i}").child("conversation", f"c{j}") for i in range(10) for j in range(10)]
    for s in scopes: await store.ensure_scope(s)
    for scope, b in memory_batches(rng, scopes, populate * 1000, 1000, words):
        await store.add_nodes(scope, b, cues={n.id: cues_of(n) for n in b})
    print("populated", populate * 1000, flush=True)
    d = conn.driver
    names = list(VARIANTS) + ["no_embedding", "no_cues"]
    res = {v: {"py": [], "stmt": [], "commit": []} for v in names}
    for rep in range(reps):
        for v in (names if rep % 2 == 0 else names[::-1]):
            scope, nodes = memory_batches(rng, [scopes[(rep * 7 + names.index(v)) % 100]], 1000, 1000, words)[0]
            if v == "no_embedding":
                nodes = [n.model_copy(update={"embedding": None}) for n in nodes]
            text = VARIANTS.get(v, TEXT)
            t0 = time.perf_counter()
            stored = [n.model_copy(update={"scope_key": scope.key}) for n in nodes]
            rows, table = upsert_rows(scope, stored, {} if v == "no_cues" else {n.id: cues_of(n) for n in stored})
            params = unprinted({"scope_key": scope.key, "rows": rows, "cues": table, "now": now()})
            t1 = time.perf_counter()
            async with d.session() as s:
                tx = await s.begin_transaction()
                ta = time.perf_counter()
                r = await tx.run(text, params, tx_token=uuid.uuid4().hex)
                recs = [x async for x in r]; summ = await r.consume()
                tb = time.perf_counter()
                await tx.commit()
                tc = time.perf_counter()
            res[v]["py"].append(t1 - t0); res[v]["stmt"].append(tb - ta); res[v]["commit"].append(tc - tb)
            print(f"rep {rep} {v}: python {1000*(t1-t0):.0f} ms, statement {1000*(tb-ta):.0f} ms, commit {1000*(tc-tb):.0f} ms", flush=True)
    print("medians (ms):")
    for v in names:
        m = {k: 1000*statistics.median(res[v][k]) for k in ("py", "stmt", "commit")}
        print(f"  {v:18s} python {m['py']:6.0f}  statement {m['stmt']:6.0f}  commit {m['commit']:6.0f}  server total {m['stmt']+m['commit']:6.0f}")
    await conn.close()
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
