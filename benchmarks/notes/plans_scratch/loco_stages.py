"""One LoCoMo conversation (conv-26) on a fresh server: recall walls, the statement timed two ways, its PROFILE, and stage costs by recall_stages' cuts. Run from the project root with PYTHONPATH=src:. (issue 11, seventh session)."""
import asyncio, collections, statistics, time, uuid
from pathlib import Path
from benchmarks._server import bench_store
from benchmarks.locomo.dataset import DEFAULT_PATH, load
from benchmarks.locomo.explore import CachedEmbeddings
from benchmarks.locomo.run import turns_of
from benchmarks.recall_stages import cut_statements
from hippograph.embeddings import SentenceTransformerEmbeddings
from hippograph.layers import MemoryOrchestrator
from hippograph.layers.ingest import ingest_conversation
from hippograph.models import Layer
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.scope import Scope

async def main():
    conv = load(str(DEFAULT_PATH))[0]
    emb = CachedEmbeddings(SentenceTransformerEmbeddings(), Path("/tmp/locomo_embed_cache.pkl"))
    async with bench_store() as (store, _):
        memory = MemoryOrchestrator(store, emb)
        scope = Scope.root("prof", uuid.uuid4().hex[:6]).child("conversation", conv.conv_id)
        await ingest_conversation(memory.services, memory.episodic, scope, turns_of(conv), resemblance_k=0)
        now = max(t.date.timestamp() for t in conv.turns) + 86_400
        cfg = RecallConfig(track_access=False)
        conn = store.conn
        captured = []
        original = conn.read_plain_as
        async def timed(query, row, **params):
            out = await original(query, row, **params)
            if query is RetrievalQuery.SEARCH_RECALL:
                captured.append(dict(params))
            return out
        conn.read_plain_as = timed
        for q in conv.questions[:20]:
            await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
        conn.read_plain_as = original
        print("captured", len(captured))
        for q in conv.questions[:20]:
            t=time.perf_counter(); await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=cfg, now=now); print("recall wall %.1f" % ((time.perf_counter()-t)*1000))
        captured = captured[-16:]
        from hippograph.retrieval.repository import RecallRow
        full = RetrievalQuery.SEARCH_RECALL.text
        async with conn.driver.session(database=conn.database) as s:
            for k in range(3):
                for p in captured[:5]:
                    t=time.perf_counter(); r = await s.run(full, p); sm = await r.consume(); a=(time.perf_counter()-t)*1000
                    t=time.perf_counter(); await conn.read_plain_as(RetrievalQuery.SEARCH_RECALL, RecallRow, **p); b=(time.perf_counter()-t)*1000
                    print(f"session.run {a:.1f} ms (server {sm.result_available_after}+{sm.result_consumed_after})  read_plain_as {b:.1f} ms")
        cuts = cut_statements(RetrievalQuery.SEARCH_RECALL.text)
        async with conn.driver.session(database=conn.database) as s:
            r = await s.run("PROFILE " + full, captured[0]); sm = await r.consume()
            def walk(p, d=0):
                print("  "*d + p["operatorType"], p.get("dbHits"), p.get("rows"), str(p.get("args",{}).get("Details",""))[:150], p.get("time", p.get("args",{}).get("Time")), list(p)[:8] if d==0 else "")
                for c in p.get("children", []): walk(c, d+1)
            walk(sm.profile)
        ms = collections.defaultdict(list)
        async with conn.driver.session(database=conn.database) as s:
            for _st, text in cuts:
                r = await s.run(text, captured[0]); await r.consume()
            for rnd in range(4):
                for p in captured:
                    for st, text in (cuts if rnd % 2 == 0 else cuts[::-1]):
                        r = await s.run(text, p); sm = await r.consume()
                        ms[st].append(float((sm.result_available_after or 0) + (sm.result_consumed_after or 0)))
        prev = 0.0
        whole = statistics.median(ms[cuts[-1][0]])
        for st, _ in cuts:
            m = statistics.median(ms[st]); print(f"{st:35s} cut {m:6.1f}  stage {m-prev:6.1f}  {(m-prev)/whole:.0%}"); prev = m
        await memory.forget(scope)
asyncio.run(main())
