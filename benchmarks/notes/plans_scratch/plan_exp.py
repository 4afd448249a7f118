"""Fresh server, conv-26 ingested: recall walls and the count of Memory scans in the recall plan at five moments (benchmarks/notes/plans-7.md)."""
import asyncio, time, uuid, sys
from pathlib import Path
from benchmarks._server import bench_store
from benchmarks.locomo.dataset import DEFAULT_PATH, load
from benchmarks.locomo.explore import CachedEmbeddings
from benchmarks.locomo.run import turns_of
from hippograph.embeddings import SentenceTransformerEmbeddings
from hippograph.layers import MemoryOrchestrator
from hippograph.layers.ingest import ingest_conversation
from hippograph.models import Layer
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.scope import Scope

def scans(plan, out):
    if plan["operatorType"].startswith(("NodeIndexScan", "NodeByLabelScan", "AllNodesScan")):
        out.append(plan["operatorType"].split("@")[0] + " " + str(plan.get("args", {}).get("Details", ""))[:60])
    for c in plan.get("children", []): scans(c, out)
    return out

async def main():
    conv = load(str(DEFAULT_PATH))[0]
    emb = CachedEmbeddings(SentenceTransformerEmbeddings(), Path("/tmp/locomo_embed_cache.pkl"))
    async with bench_store() as (store, _):
        memory = MemoryOrchestrator(store, emb)
        scope = Scope.root("prof", uuid.uuid4().hex[:6]).child("conversation", conv.conv_id)
        conn = store.conn
        captured = []
        original = conn.read_plain_as
        async def cap(query, row, **params):
            if query is RetrievalQuery.SEARCH_RECALL: captured.append(dict(params))
            return await original(query, row, **params)
        conn.read_plain_as = cap
        cfg = RecallConfig(track_access=False)
        if "--warm-empty" in sys.argv:
            await memory.recall(scope, "hello there", layers=[Layer.EPISODIC], config=cfg)
        await ingest_conversation(memory.services, memory.episodic, scope, turns_of(conv), resemblance_k=0)
        now = max(t.date.timestamp() for t in conv.turns) + 86_400
        async def probe(label):
            ws = []
            for q in conv.questions[:8]:
                t = time.perf_counter(); await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=cfg, now=now); ws.append((time.perf_counter()-t)*1000)
            async with conn.driver.session(database=conn.database) as s:
                r = await s.run("EXPLAIN " + RetrievalQuery.SEARCH_RECALL.text, captured[-1]); sm = await r.consume()
            sc = scans(sm.plan, [])
            print(label, "walls", [round(w) for w in ws], "scans", len(sc), sc[:6])
        await probe("after ingest")
        time.sleep(12)
        await probe("12 s later")
        async with conn.driver.session(database=conn.database) as s:
            await (await s.run("CALL db.resampleOutdatedIndexes()")).consume()
        time.sleep(2)
        await probe("after resample")
        await asyncio.sleep(11)
        await probe("11 s after resample")
        async with conn.driver.session(database=conn.database) as s:
            await (await s.run("CALL db.clearQueryCaches()")).consume()
        await probe("after clearQueryCaches")
asyncio.run(main())
