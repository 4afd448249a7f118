"""Property-based isolation: random scope trees, random writes, reads at random scopes."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippograph.models import Layer, MemoryEdge, MemoryNode
from hippograph.scope import Scope
from hippograph.store import GraphStore

KINDS = ("org", "team", "user", "conversation")

# A tree is a list of parent indices: node i > 0 hangs below parents[i] < i; node 0 is a root.
trees = st.integers(min_value=1, max_value=9).flatmap(
    lambda n: st.tuples(*[st.integers(0, max(i - 1, 0)) for i in range(n)])
)


# Ids that are prefixes of each other: a key compared by prefix instead of by exact
# membership (org:acme vs org:acme2, user:u vs user:u1) lets one scope see or erase another.
ID_CHOICES = ("u", "u1", "u12", "u2", "acme", "acme2")
ids = st.lists(st.sampled_from(ID_CHOICES), min_size=9, max_size=9)
# Namespaces too, prefixes of each other; None is the default namespace every other one shares.
NAMESPACE_CHOICES = (None, None, "s", "s1", "t")
namespaces = st.lists(st.sampled_from(NAMESPACE_CHOICES), min_size=9, max_size=9)


def build_scopes(root_id: str, parents: tuple[int, ...], names: list[str]) -> list[Scope]:
    scopes: list[Scope] = []
    for i, parent in enumerate(parents):
        if i == 0 or scopes[parent].depth >= len(KINDS):
            scopes.append(Scope.root("org", f"{root_id}{names[i]}"))  # another tenant
        else:
            p = scopes[parent]
            scopes.append(p.child(KINDS[p.depth], names[i]))
    return scopes


def with_namespaces(scopes: list[Scope], names: list[str | None]) -> list[Scope]:
    """Each scope, plus the same path in a drawn namespace (its partition)."""
    return [*scopes, *(s.in_namespace(ns) for s, ns in zip(scopes, names, strict=False) if ns)]


def expected_visible(at: Scope, written: dict[str, Scope]) -> set[str]:
    return {nid for nid, s in written.items() if at.sees(s)}


def expected_subtree(at: Scope, written: dict[str, Scope]) -> set[str]:
    return {nid for nid, s in written.items() if at.is_ancestor_of(s)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    parents=trees,
    names=ids,
    spaces=namespaces,
    writes=st.lists(st.integers(0, 17), min_size=1, max_size=25),
    data=st.data(),
)
async def test_reads_see_exactly_own_and_ancestor_memories(
    store: GraphStore,
    parents: tuple[int, ...],
    names: list[str],
    spaces: list[str | None],
    writes: list[int],
    data: st.DataObject,
) -> None:
    root_id = f"iso-{uuid.uuid4().hex[:10]}-"
    # equal paths (and namespaces) are one scope
    scopes = list(dict.fromkeys(with_namespaces(build_scopes(root_id, parents, names), spaces)))
    roots = {s.levels[0] for s in scopes}
    written: dict[str, Scope] = {}
    vec = [1.0] + [0.0] * 383
    try:
        for w in writes:
            scope = scopes[w % len(scopes)]
            node = MemoryNode(layer=Layer.SEMANTIC, label=f"m-{len(written)}", embedding=vec)
            await store.add_node(scope, node)
            written[node.id] = scope
        for at in scopes:
            seen = {n.id for n in await store.query_nodes(at, limit=None)}
            assert seen == expected_visible(at, written), at.key
            subtree = {n.id for n in await store.query_subtree(at)}
            assert subtree == expected_subtree(at, written), at.key
            hits = {h.id for h in await store.search_vectors(at, vec, top_k=50)}
            assert hits == expected_visible(at, written), at.key
            assert await store.count_vectors(at) == len(expected_visible(at, written))
        # edges: link each memory to a visible one; edge reads stay visible
        for nid, scope in written.items():
            visible = sorted(expected_visible(scope, written) - {nid})
            if visible:
                await store.upsert_edge(scope, MemoryEdge(source=nid, target=visible[0]))
        for at in scopes:
            vis = expected_visible(at, written)
            for e in await store.query_edges(at, limit=1000):
                assert e.source in vis and e.target in vis
        # delete one random subtree: nothing of it remains, nothing else changes
        victim = scopes[data.draw(st.integers(0, len(scopes) - 1))]
        before = {s.key: {n.id for n in await store.query_nodes(s, limit=None)} for s in scopes}
        gone = expected_subtree(victim, written)
        assert await store.delete_subtree(victim) == len(gone)
        for s in scopes:
            now = {n.id for n in await store.query_nodes(s, limit=None)}
            assert now == before[s.key] - gone, s.key
            if victim.is_ancestor_of(s):
                assert await store.count_vectors(s) == len(now)
        for e_scope in scopes:
            for e in await store.query_edges(e_scope, limit=1000):
                assert e.source not in gone and e.target not in gone
    finally:
        for r in roots:
            await store.delete_subtree(Scope((r,)))
