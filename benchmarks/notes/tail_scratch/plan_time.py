"""How long the server takes to plan the recall statement for a parameter-type combination
it has not seen (EXPLAIN: planning only). Usage: plan_time.py DATA_DIR"""
import asyncio, sys, time, json
from pathlib import Path
from hippograph.store import LocalNeo4j, Neo4jConnection
from hippograph.retrieval.queries import RetrievalQuery

async def main(d: Path) -> None:
    s = LocalNeo4j(d)
    conn = await Neo4jConnection.connect(str(s.status().uri), password=s.password(), timeout=900)
    base = dict(vector=[0.1] * 384, lucene="x", visible=["a"], layers=["semantic"], k=100, fetch_k=400,
                exact_below=5000, keys=[], population=-1, vector_weight=1.0, fulltext_weight=1.0,
                person_bonus=0.5, max_nodes=50, max_hops=2, fan_out=10, base_decay=0.5, threshold=0.01,
                session_decay=0.3, session_seeds=3, cue_decay=0.3, cue_seeds=5, max_cue_degree=50,
                cue_budget=200, assoc_limit=1000, rank_n=50)
    variants = sys.argv[2:] or ["population=1.5", "population=7", "keys=['bob']", "lucene=None"]
    async with conn.driver.session(database=conn.database) as session:
        for v in variants:
            name, val = v.split("=", 1)
            params = {**base, name: eval(val)}
            t = time.perf_counter()
            r = await session.run("EXPLAIN " + RetrievalQuery.SEARCH_RECALL.text, params)
            await r.consume()
            print(f"EXPLAIN with {v}: {(time.perf_counter() - t) * 1000:.0f} ms", flush=True)
    await conn.close()

asyncio.run(main(Path(sys.argv[1])))
