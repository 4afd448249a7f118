import asyncio, random, sys, json
from pathlib import Path
sys.path.insert(0, "/work/wt/speed")
from benchmarks.recall_profile import open_store, HOPS2
from hippograph.retrieval.queries import RetrievalQuery as Q
from hippograph.store.connection import Neo4jConnection
from rich.console import Console
captured = {}
async def main():
    server, store, leaves, probes = await open_store(Path("/tmp/speed/db10k"), 10000, Console())
    from benchmarks.recall_oneshot import OneShotEngine
    from hippograph.embeddings import HashingEmbeddings
    e = OneShotEngine(store, HashingEmbeddings(), HOPS2)
    orig = store.conn.read
    async def cap(query, **p):
        captured.update(p); return await orig(query, **p)
    store.conn.read = cap
    await e.recall(leaves[3], "what about w17abcd and w230hgfe ann", config=HOPS2)
    store.conn.read = orig
    async with store.conn.driver.session() as s:
        r = await s.run("PROFILE " + Q.SEARCH_RECALL.text, captured); await r.consume()
        summ = await (await s.run("PROFILE " + Q.SEARCH_RECALL.text, captured)).consume()
    ops = []
    def walk(p, depth=0):
        ops.append((p.get("dbHits", 0), p.get("rows", 0), p.get("time", 0), p["operatorType"], p.get("args", {}).get("Details", "")[:90]))
        for c in p.get("children", []): walk(c, depth+1)
    walk(summ.profile)
    print("total dbhits", sum(o[0] for o in ops), "runtime", summ.profile.get("args", {}).get("runtime"), summ.result_available_after, summ.result_consumed_after)
    for o in sorted(ops, key=lambda o: -o[0])[:25]: print(o)
    await store.conn.close()
asyncio.run(main())
