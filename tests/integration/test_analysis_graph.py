"""networkx views against the real Neo4j: a scope's subgraph read through the store's public
queries, and a real recall's activation trace."""

from __future__ import annotations

from collections import Counter

import networkx as nx

from hippograph.analysis import scope_subgraph, to_networkx
from hippograph.app.demo import sample_turns
from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore


async def test_scope_subgraph_and_recall_trace(store: GraphStore, tenant: Scope) -> None:
    memory = Memory(store, HashingEmbeddings())
    user = tenant.child("user", "sam")
    turns = sample_turns()
    await memory.ingest(user, turns)
    old = await memory.remember(user, "Sam's employer", "Sam works at Orbital Arms.", key="sam.employer")
    new = await memory.remember(user, "Sam's employer", "Sam works at Tidewater Labs.", key="sam.employer")
    policy = await memory.remember(tenant, "Policy", "Dogs are welcome in every office.")
    gone = await memory.remember(user, "Shoe size", "Size 44.")
    await memory.retract(user, gone.id, reason="asked to forget", actor="user")

    graph = await scope_subgraph(memory, user)
    assert isinstance(graph, nx.MultiDiGraph) and graph.graph["scope_key"] == user.key
    live = await store.query_subtree(user, limit=None)
    assert set(graph.nodes) == {n.id for n in live}
    assert gone.id not in graph and policy.id not in graph
    layers = Counter(d["layer"] for _, d in graph.nodes(data=True))
    assert layers["episodic"] == len(turns) and layers["semantic"] == 2
    relationships = Counter(d["relationship"] for _, _, d in graph.edges(data=True))
    assert relationships["NEXT"] == len(turns) - len({t.session_id for t in turns})
    assert graph.has_edge(new.id, old.id) and "SUPERSEDES" in {
        d["relationship"] for d in graph.get_edge_data(new.id, old.id).values()
    }

    wider = await scope_subgraph(store, user, include_visible=True, include_retracted=True)
    assert {policy.id, gone.id} <= set(wider) and wider.nodes[gone.id]["retracted"] is True

    result = await memory.recall(user, "Where does Sam work now?", top_k=5)
    trace = to_networkx(result)
    assert set(result.activation.seeds) <= set(trace)
    assert {i.node.id for i in result.items} <= set(trace)
    for a, b, rel in trace.edges(keys=True):
        if trace.nodes[a]["kind"] == "memory" and trace.nodes[b]["kind"] == "memory":
            assert b in graph[a] or a in graph[b], f"{a} -[{rel}]-> {b} is an edge of the scope"
