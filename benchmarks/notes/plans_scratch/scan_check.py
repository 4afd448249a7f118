"""Which catalogued statements plan a scan on a fresh database that took its memories (index samples stale), and which still do after a resample."""
import asyncio, re, uuid, time, collections
from pathlib import Path
from benchmarks._server import bench_store
from benchmarks.locomo.dataset import DEFAULT_PATH, load
from benchmarks.locomo.explore import CachedEmbeddings
from benchmarks.locomo.run import turns_of
from hippograph.embeddings import SentenceTransformerEmbeddings
from hippograph.layers import MemoryOrchestrator
from hippograph.layers.ingest import ingest_conversation
from hippograph.scope import Scope
from tests.support.catalog import all_queries

def walk(p, out):
    op = p["operatorType"].split("@")[0]
    if op in ("NodeIndexScan", "NodeByLabelScan", "AllNodesScan", "DirectedRelationshipTypeScan", "UndirectedRelationshipTypeScan", "NodeUniqueIndexScan"):
        out.append(op + " " + str(p.get("args", {}).get("Details", ""))[:70])
    for c in p.get("children", []): walk(c, out)
    return out

async def explain_all(conn):
    res = {}
    async with conn.driver.session(database=conn.database) as s:
        for q in all_queries():
            if re.match(r"\s*(CREATE|DROP|SHOW)", re.sub(r"(?m)^//.*\n", "", q.text)): continue
            try:
                sm = await (await s.run("EXPLAIN " + q.text)).consume()
            except Exception as e:
                res[f"{type(q).__name__}.{q.name}"] = ["ERR " + str(e)[:60]]; continue
            res[f"{type(q).__name__}.{q.name}"] = walk(sm.plan, [])
    return res

async def main():
    conv = load(str(DEFAULT_PATH))[0]
    emb = CachedEmbeddings(SentenceTransformerEmbeddings(), Path("/tmp/locomo_embed_cache.pkl"))
    async with bench_store() as (store, _):
        memory = MemoryOrchestrator(store, emb)
        scope = Scope.root("prof", uuid.uuid4().hex[:6]).child("conversation", conv.conv_id)
        await ingest_conversation(memory.services, memory.episodic, scope, turns_of(conv), resemblance_k=0)
        conn = store.conn
        async with conn.driver.session(database=conn.database) as s:
            await (await s.run("CALL db.clearQueryCaches()")).consume()
        stale = await explain_all(conn)
        async with conn.driver.session(database=conn.database) as s:
            await (await s.run("CALL db.resampleOutdatedIndexes()")).consume()
            await (await s.run("CALL db.clearQueryCaches()")).consume()
        await asyncio.sleep(3)
        fresh = await explain_all(conn)
        for name in sorted(stale):
            a, b = collections.Counter(stale[name]), collections.Counter(fresh.get(name, []))
            only = a - b
            if only:
                print("STALE-ONLY", name, dict(only))
        for name in sorted(fresh):
            if fresh[name]:
                print("ALWAYS", name, sorted(set(fresh[name]))[:4])
asyncio.run(main())
