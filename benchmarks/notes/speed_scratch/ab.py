"""A/B: search_recall v1 (nested list scans) vs v2 (grouping), vs the engine; same run, interleaved."""
import asyncio, random, statistics, time, sys
from pathlib import Path
sys.path.insert(0, "/work/wt/speed")
from benchmarks.recall_profile import open_store, HOPS2, NOW, same
from benchmarks.recall_oneshot import OneShotEngine
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.queries import RetrievalQuery as Q
from hippograph.store.queries import StoreQuery
from rich.console import Console
def pct(xs, q): return statistics.quantiles(xs, n=100)[q-1]
V1 = open("/tmp/speed/search_recall_v1.cypher").read()
class Fake:
    value = "retrieval/search_recall_v1"; text = V1
async def main(n):
    server, store, leaves, probes = await open_store(Path(sys.argv[2]), 10000, Console())
    e0 = RecallEngine(store, HashingEmbeddings(), HOPS2)
    e2 = OneShotEngine(store, HashingEmbeddings(), HOPS2)
    e1 = OneShotEngine(store, HashingEmbeddings(), HOPS2)
    orig = store.conn.read
    async def read_v1(query, **p):
        return await orig(Fake() if query is Q.SEARCH_RECALL else query, **p)
    vrng = random.Random(10000); vocab = [f"w{i}" + "".join(vrng.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
    rng = random.Random(11)
    all_keys = sorted({k for leaf in leaves for k in leaf.ancestor_keys()})
    lat = {k: [] for k in ("raw", "engine", "v1", "v2")}; bad = {"v1": 0, "v2": 0}
    for q in range(n + 5):
        leaf = leaves[q % len(leaves)]; text = f"what about {rng.choice(vocab)} and {rng.choice(vocab)}"
        vec = await HashingEmbeddings().embed(text)
        t = time.perf_counter(); await store.conn.read(StoreQuery.SEARCH_VECTOR_INDEX, vector=vec, visible=all_keys, layers=None, k=50, fetch_k=50); r = (time.perf_counter()-t)*1000
        t = time.perf_counter(); a = await e0.recall(leaf, text, config=HOPS2, now=NOW); r0 = (time.perf_counter()-t)*1000
        store.conn.read = read_v1
        t = time.perf_counter(); b = await e1.recall(leaf, text, config=HOPS2, now=NOW); r1 = (time.perf_counter()-t)*1000
        store.conn.read = orig
        t = time.perf_counter(); c = await e2.recall(leaf, text, config=HOPS2, now=NOW); r2 = (time.perf_counter()-t)*1000
        if q >= 5:
            lat["raw"].append(r); lat["engine"].append(r0); lat["v1"].append(r1); lat["v2"].append(r2)
            bad["v1"] += not same(a, b); bad["v2"] += not same(a, c)
    for k, xs in lat.items(): print(f"{k}: p50 {pct(xs,50):.1f} p95 {pct(xs,95):.1f}  p95/raw p95 {pct(xs,95)/pct(lat['raw'],95):.2f}  p50/engine p50 {pct(xs,50)/pct(lat['engine'],50):.2f}")
    print("differing from engine:", bad, "of", n)
    await store.conn.close()
asyncio.run(main(int(sys.argv[1])))
