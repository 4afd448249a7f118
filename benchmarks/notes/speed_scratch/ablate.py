import asyncio, json, random, statistics, time, sys
from pathlib import Path
sys.path.insert(0, "/work/wt/speed")
from benchmarks.recall_profile import open_store, HOPS2, NOW
from benchmarks.recall_oneshot import OneShotEngine
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.config import RecallConfig, ActivationConfig
from rich.console import Console
def pct(xs, q): return statistics.quantiles(xs, n=100)[q-1]
async def main():
    server, store, leaves, probes = await open_store(Path("/tmp/speed/db10k"), 10000, Console())
    e = OneShotEngine(store, HashingEmbeddings(), HOPS2)
    vrng = random.Random(10000); vocab = [f"w{i}" + "".join(vrng.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
    rng = random.Random(3)
    cfgs = {
      "full": HOPS2,
      "hops0": RecallConfig(track_access=False, activation=ActivationConfig(max_hops=0)),
      "no_spreading": RecallConfig(track_access=False, activation=ActivationConfig(max_nodes=0)),
      "no_assoc": RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2, session_decay=0, cue_decay=0)),
      "cand50": RecallConfig(track_access=False, candidates_per_channel=50, activation=ActivationConfig(max_hops=2)),
    }
    lat = {k: [] for k in cfgs}
    for q in range(60):
        leaf = leaves[q % len(leaves)]; text = f"what about {rng.choice(vocab)} and {rng.choice(vocab)}"
        for name, cfg in cfgs.items():
            t = time.perf_counter(); await e.recall(leaf, text, config=cfg, now=NOW); lat[name].append((time.perf_counter()-t)*1000)
    for k, xs in lat.items(): print(f"{k}: p50 {pct(xs,50):.1f} p95 {pct(xs,95):.1f} ratio p50 to full {pct(xs,50)/pct(lat['full'],50):.2f}")
    await store.conn.close()
asyncio.run(main())
