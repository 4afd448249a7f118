"""PROFILE of upsert_nodes (and upsert_edges) for one LoCoMo chunk of 256 turns, rolled back."""
import asyncio, json, sys, time, uuid
from hippograph.store import Neo4jConnection, GraphStore, migrate
from hippograph.store.queries import MemoryQuery as Q
from hippograph.store.mapping import upsert_rows
from hippograph.store.connection import unprinted
from hippograph.cues import cues_of
from hippograph.embeddings import HashingEmbeddings
from hippograph.layers.ingest import turn_nodes, ConversationTurn
from hippograph.models import now
from hippograph.scope import Scope
from benchmarks import writes_ab
from benchmarks.locomo.dataset import DEFAULT_PATH

def walk(p, depth=0, out=None):
    out = out if out is not None else []
    out.append(("  " * depth + p["operatorType"], p.get("dbHits", 0), p.get("rows", 0), p.get("time", 0)))
    for c in p.get("children", []): walk(c, depth + 1, out)
    return out

async def main():
    c = json.load(open("/tmp/writes4/conn.json"))
    conn = await Neo4jConnection.connect(c["uri"], password=c["password"])
    store = GraphStore(conn)
    conv = writes_ab.locomo_turns(DEFAULT_PATH, 256)[0]
    scope = Scope.root("org", f"p{uuid.uuid4().hex[:6]}").child("user", "u")
    await store.ensure_scope(scope)
    nodes, texts, edges = turn_nodes(scope, [ConversationTurn(**t) for t in conv])
    vecs = await HashingEmbeddings().embed_batch(texts)
    nodes = [n.model_copy(update={"embedding": v, "scope_key": scope.key}) for n, v in zip(nodes, vecs)]
    cues = {n.id: cues_of(n) for n in nodes}
    rows, table = upsert_rows(scope, nodes, cues)
    print("turns", len(nodes), "cues", sum(len(v) for v in cues.values()), "distinct", len(table), "edges", len(edges))
    params = unprinted({"scope_key": scope.key, "rows": rows, "cues": table, "now": now()})
    async with conn.driver.session() as s:
        tx = await s.begin_transaction()
        t = time.perf_counter()
        r = await tx.run("PROFILE " + Q.UPSERT_NODES.text, params, tx_token=uuid.uuid4().hex)
        _ = [x async for x in r]; summ = await r.consume()
        print(f"statement {1000*(time.perf_counter()-t):.0f} ms")
        ops = walk(summ.profile)
        print("db hits", sum(o[1] for o in ops))
        for o in ops: print(f"   {o[0]:60s} hits {o[1]:7d} rows {o[2]:6d} time {o[3]/1e6:7.1f} ms")
        await tx.rollback()
    await conn.close()
asyncio.run(main())
