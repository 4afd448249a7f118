import asyncio, json, random, sys, time, cProfile, pstats
from benchmarks.recall_bench import tree
from hippograph.embeddings import HashingEmbeddings
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.store import GraphStore, Neo4jConnection
async def main(d, n):
    st = json.load(open(f"{d}/neo4j.json")); root = json.load(open(f"{d}/profile_state.json"))["root"]
    conn = await Neo4jConnection.connect(st["uri"], password=open(f"{d}/password").read().strip())
    store = GraphStore(conn); emb = HashingEmbeddings(); leaves = tree(root)
    cfg = RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2))
    engine = RecallEngine(store, emb, cfg)
    vr = random.Random(10000); vocab = [f"w{i}" + "".join(vr.choice("abcdefgh") for _ in range(4)) for i in range(5000)]
    rng = random.Random(5)
    work = [(leaves[q % len(leaves)], f"what about {rng.choice(vocab)} and {rng.choice(vocab)}") for q in range(n)]
    await engine.recall(*work[0])
    pr = cProfile.Profile(); pr.enable()
    for leaf, text in work: await engine.recall(leaf, text)
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(35)
    await conn.close()
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
