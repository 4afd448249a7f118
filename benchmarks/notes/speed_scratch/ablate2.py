"""Where one-round-trip recall's time goes: the same queries, interleaved, with parts of spreading off."""
import asyncio, json, random, statistics, sys, time
from benchmarks.recall_bench import tree
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.store import GraphStore, Neo4jConnection
from hippograph.store.queries import MemoryQuery

def pct(xs, q): return statistics.quantiles(xs, n=100)[q - 1]

async def main(d, n):
    st = json.load(open(f"{d}/neo4j.json")); root = json.load(open(f"{d}/profile_state.json"))["root"]
    conn = await Neo4jConnection.connect(st["uri"], password=open(f"{d}/password").read().strip())
    store = GraphStore(conn); emb = HashingEmbeddings(); leaves = tree(root)
    all_keys = sorted({k for l in leaves for k in l.ancestor_keys()})
    cfgs = {
        "full (hops 2, session + cue)": RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2)),
        "hops 2, no session/cue spreading": RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2, session_decay=0.0, cue_decay=0.0)),
        "no spreading (channels + evidence + rows)": RecallConfig(track_access=False, activation=ActivationConfig(max_nodes=0)),
        "full, 50 candidates per channel": RecallConfig(track_access=False, candidates_per_channel=50, activation=ActivationConfig(max_hops=2)),
    }
    engine = RecallEngine(store, emb)
    vr = random.Random(10000); vocab = [f"w{i}" + "".join(vr.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
    rng = random.Random(99); lat = {k: [] for k in ["raw", *cfgs]}; inner = {k: [] for k in cfgs}
    work = [(leaves[q % len(leaves)], f"what about {rng.choice(vocab)} and {rng.choice(vocab)}") for q in range(n + 3)]
    for i, (leaf, text) in enumerate(work):
        vec = await emb.embed(text)
        t = time.perf_counter(); await conn.read(MemoryQuery.SEARCH_VECTOR_INDEX, vector=vec, visible=all_keys, layers=None, k=50, fetch_k=50)
        if i >= 3: lat["raw"].append((time.perf_counter() - t) * 1000)
        for name, cfg in cfgs.items():
            t = time.perf_counter(); r = await engine.recall(leaf, text, config=cfg)
            if i >= 3:
                lat[name].append((time.perf_counter() - t) * 1000)
                inner[name].append(r.timings.candidates_ms)
    for k, xs in lat.items():
        extra = f"   (statement round trip p50 {statistics.median(inner[k]):.1f})" if k in inner else ""
        print(f"{k:45s} p50 {pct(xs,50):7.1f}  p95 {pct(xs,95):7.1f}  p50 ratio to full {pct(xs,50)/pct(lat[next(iter(cfgs))],50):.2f}{extra}")
    await conn.close()
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
