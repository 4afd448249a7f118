"""Tracked objects one recall row allocates when validated, without edges / vector hits, and in edge_arrivals (edit the path)."""
import asyncio, json, gc
from pathlib import Path
from benchmarks.recall_bench import tree
from benchmarks.recall_profile import HOPS2, NOW
from hippograph.embeddings import HashingEmbeddings
import hippograph.retrieval.engine as E
from hippograph.retrieval.repository import RecallRow
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection
async def main():
    d = Path('/work/tail-data/r10k'); s = LocalNeo4j(d)
    state = json.loads((d / 'profile_state.json').read_text())
    conn = await Neo4jConnection.connect(str(s.status().uri), password=s.password())
    store = GraphStore(conn); leaves = tree(state['root'])
    eng = E.RecallEngine(store, HashingEmbeddings(), HOPS2)
    rows = []
    orig = conn._managed
    async def m(q, params, **kw):
        r = await orig(q, params, **kw)
        if q is RetrievalQuery.SEARCH_RECALL: rows.append(r[0])
        return r
    conn._managed = m
    await eng.recall(leaves[3], 'what about x and y', config=HOPS2, now=NOW)
    row = rows[-1]
    def net(f):
        gc.collect(); gc.disable(); a = gc.get_count()[0]; x = f(); b = gc.get_count()[0]; gc.enable(); return b - a, x
    print('whole row validate', net(lambda: RecallRow.model_validate(row))[0])
    for k in ('edges', 'vector_hits'):
        r2 = {**row, k: []}
        print('without', k, net(lambda: RecallRow.model_validate(r2))[0])
    n, parsed = net(lambda: RecallRow.model_validate(row))
    print('edge_arrivals', net(lambda: E.edge_arrivals(parsed.edges))[0])
    print('memories()', net(lambda: parsed.memories())[0])
    await conn.close()
asyncio.run(main())
