"""Which parameter changes make the server plan the recall statement again, and whether EXPLAIN
fills the cache a run reads. Starts DATA_DIR's server fresh (stop, start), then per step
`[explain|run] name=value ...` times one statement. Usage: probe.py DATA_DIR STEP..."""
import asyncio, sys, time
from pathlib import Path
from hippograph.store import LocalNeo4j, Neo4jConnection
from hippograph.retrieval.queries import RetrievalQuery

BASE = dict(vector=[0.1] * 384, directed=True, lucene="x".ljust(1001), visible=["a", ""], layers=["semantic", ""], k=100, fetch_k=400,
            exact_below=5000, keys=["", ""], population=-1, vector_weight=1.0, fulltext_weight=1.0,
            person_bonus=0.5, max_nodes=50, max_hops=2, fan_out=10, base_decay=0.5, threshold=0.01,
            session_decay=0.3, session_seeds=3, cue_decay=0.3, cue_seeds=5, max_cue_degree=50,
            cue_budget=200, assoc_limit=1000, rank_n=50)

async def main(d: Path, steps: list[str]) -> None:
    import json
    from benchmarks.recall_bench import tree
    state = json.loads((d / "profile_state.json").read_text())
    env = {"LEAF": tree(state["root"])[0].ancestor_keys(), "PROBE": state["probes"][0]}
    s = LocalNeo4j(d, heap="1g", pagecache_mb=512)
    s.stop(); st = s.start(timeout=900)
    conn = await Neo4jConnection.connect(str(st.uri), password=s.password(), timeout=900)
    async with conn.driver.session(database=conn.database) as session:
        for step in steps:
            mode, *kvs = step.split()
            params = dict(BASE)
            for kv in kvs:
                name, val = kv.split("=", 1)
                params[name] = eval(val, env)
            t = time.perf_counter()
            r = await session.run(("EXPLAIN " if mode == "explain" else "") + RetrievalQuery.SEARCH_RECALL.text, params)
            await r.consume()
            print(f"{step}: {(time.perf_counter() - t) * 1000:.0f} ms", flush=True)
    await conn.close()
    s.stop()

asyncio.run(main(Path(sys.argv[1]), sys.argv[2:]))
