"""Python collections by recall phase (gen-0 counts attributed to the phase that was running), 100 recalls on a kept recall_ab server (edit the path)."""
import asyncio, json, gc, collections, time
from pathlib import Path
from benchmarks.recall_bench import tree
from benchmarks.recall_profile import HOPS2, NOW
from hippograph.embeddings import HashingEmbeddings
import hippograph.retrieval.engine as E
from hippograph.retrieval.repository import RecallRow
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection
phase = ['other']
counts = collections.Counter()
def cb(ph, info):
    if ph == 'start': counts[(phase[0], info['generation'])] += 1
def tag(name, f):
    def g(*a, **k):
        old = phase[0]; phase[0] = name
        try: return f(*a, **k)
        finally: phase[0] = old
    return g
async def main():
    d = Path('/work/tail-data/r10k'); s = LocalNeo4j(d)
    state = json.loads((d / 'profile_state.json').read_text())
    conn = await Neo4jConnection.connect(str(s.status().uri), password=s.password())
    store = GraphStore(conn); leaves = tree(state['root'])
    eng = E.RecallEngine(store, HashingEmbeddings(), HOPS2)
    orig_m = conn._managed
    async def m(q, params, **kw):
        phase[0] = 'driver'
        try: return await orig_m(q, params, **kw)
        finally: phase[0] = 'other'
    conn._managed = m
    RecallRow.model_validate = tag('validate', RecallRow.model_validate)
    E._activation = tag('activation', E._activation)
    E.evidence_of = tag('evidence', E.evidence_of)
    eng._score = tag('score', eng._score)
    E.apply_layer_rules = tag('layer_rules', E.apply_layer_rules)
    await eng.recall(leaves[0], 'what about x and y', config=HOPS2, now=NOW)
    gc.callbacks.append(cb)
    for i in range(100):
        await eng.recall(leaves[i % 100], f'what about {i} and y', config=HOPS2, now=NOW)
    gc.callbacks.remove(cb)
    for k, v in sorted(counts.items()): print(k, v)
    await conn.close()
asyncio.run(main())
