from __future__ import annotations

import itertools

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import ConflictError, InvalidInputError, InvalidScopeError, NotFoundError
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection

INJECTIONS = [
    "x`}) DETACH DELETE n //",
    "x`) WITH n MATCH (m) DETACH DELETE m //",
    "'; MATCH (n) DETACH DELETE n; //",
    '") RETURN 1 //',
]


def fact(label: str, **kw: object) -> MemoryNode:
    fields: dict[str, object] = {"content": f"{label} content", **kw}
    return MemoryNode(layer=Layer.SEMANTIC, label=label, **fields)  # type: ignore[arg-type]


async def test_add_get_update_delete(store: GraphStore, tenant: Scope) -> None:
    node = await store.add_node(tenant, fact("coffee", properties={"likes": True}, importance=6))
    got = await store.get_node(tenant, node.id)
    assert got is not None and got.label == "coffee" and got.properties == {"likes": True}
    assert got.scope_key == tenant.key and got.importance == 6 and got.layer is Layer.SEMANTIC
    updated = await store.update_node(tenant, node.id, {"importance": 9.0, "content": "strong coffee"})
    assert updated.importance == 9.0 and updated.content == "strong coffee"
    assert updated.updated_at >= node.updated_at
    assert await store.delete_node(tenant, node.id)
    assert await store.get_node(tenant, node.id) is None
    assert not await store.delete_node(tenant, node.id)


async def test_add_is_idempotent_by_id(store: GraphStore, tenant: Scope) -> None:
    node = fact("tea")
    await store.add_nodes(tenant, [node])
    await store.add_nodes(tenant, [node])
    assert len(await store.query_nodes(tenant, {"label": "tea"})) == 1
    other = Scope.root("org", tenant.id + "-other")
    try:
        with pytest.raises(ConflictError):
            await store.add_node(other, node)
        assert await store.get_node(other, node.id) is None
    finally:
        await store.delete_subtree(other)


async def test_bad_input_is_refused_before_writing(store: GraphStore, tenant: Scope) -> None:
    node = await store.add_node(tenant, fact("stable"))
    with pytest.raises(InvalidInputError) as err:
        await store.update_node(tenant, node.id, {"importance": 42})
    assert err.value.field == "updates.importance"
    with pytest.raises(InvalidInputError, match=r"updates\.layer"):
        await store.update_node(tenant, node.id, {"layer": "working"})
    with pytest.raises(InvalidInputError, match=r"updates\.nonsense"):
        await store.update_node(tenant, node.id, {"nonsense": 1})
    with pytest.raises(InvalidInputError, match=r"filters\.colour"):
        await store.query_nodes(tenant, {"colour": "red"})
    for bad in INJECTIONS:
        with pytest.raises(InvalidInputError):
            await store.get_node(tenant, bad)
        with pytest.raises(InvalidInputError):
            await store.link(tenant, node.id, node.id, bad)
        with pytest.raises(InvalidScopeError):
            Scope.root("org", bad)
    again = await store.get_node(tenant, node.id)
    assert again is not None and again.importance == 5.0


async def test_injection_text_is_stored_literally(store: GraphStore, tenant: Scope) -> None:
    nodes = [fact(text, content=text) for text in INJECTIONS]
    await store.add_nodes(tenant, nodes)
    stored = await store.query_nodes(tenant, {"layers": ["semantic"]})
    assert sorted(n.content for n in stored) == sorted(INJECTIONS)


async def test_edges_upsert_adds_weight_and_keeps_id(store: GraphStore, tenant: Scope) -> None:
    a, b = await store.add_nodes(tenant, [fact("a"), fact("b")])
    e1 = await store.upsert_edge(tenant, MemoryEdge(source=a.id, target=b.id, relationship=Relationship.RELATES_TO))
    e2 = await store.upsert_edge(tenant, MemoryEdge(source=a.id, target=b.id, relationship="RELATES_TO"))
    assert e2.id == e1.id and e2.weight == e1.weight + 1
    e3 = await store.add_edge(tenant, MemoryEdge(source=a.id, target=b.id))
    assert e3.id == e1.id and e3.weight == e2.weight
    other = await store.upsert_edge(tenant, MemoryEdge(source=a.id, target=b.id, relationship="MENTIONS"))
    assert other.id != e1.id
    edges = await store.query_edges(tenant, limit=10)
    assert {e.relationship for e in edges} == {Relationship.RELATES_TO, Relationship.MENTIONS}
    assert [e.id for e in await store.query_edges(tenant, {"relationship": "MENTIONS"})] == [other.id]
    page1 = await store.query_edges(tenant, limit=1, offset=0)
    page2 = await store.query_edges(tenant, limit=1, offset=1)
    assert {page1[0].id, page2[0].id} == {e1.id, other.id}
    neighbours = await store.get_neighbors(tenant, a.id)
    assert {n.id for n, _ in neighbours} == {b.id}
    assert [n.id for n, _ in await store.get_neighbors(tenant, a.id, "MENTIONS")] == [b.id]
    with pytest.raises(ConflictError):
        await store.delete_node(tenant, a.id)
    assert await store.delete_edge(tenant, other.id)
    assert await store.delete_node(tenant, a.id, cascade=True)
    assert await store.query_edges(tenant) == []


async def test_edge_to_invisible_node_is_refused(store: GraphStore, tenant: Scope) -> None:
    a = await store.add_node(tenant.child("user", "u1"), fact("a"))
    b = await store.add_node(tenant.child("user", "u2"), fact("b"))
    with pytest.raises(NotFoundError):
        await store.upsert_edge(tenant.child("user", "u1"), MemoryEdge(source=a.id, target=b.id))


async def test_add_nodes_writes_their_edges_in_the_same_transaction(store: GraphStore, tenant: Scope) -> None:
    """Edges given with the nodes: created with them (add_edge semantics), and an end that is
    not visible refuses the whole batch — no node, cue or edge of it is written."""
    old = await store.add_node(tenant, fact("old"))
    a, b = fact("a"), fact("b")
    await store.add_nodes(
        tenant,
        [a, b],
        edges=[MemoryEdge(source=old.id, target=a.id), MemoryEdge(source=a.id, target=b.id, relationship="NEXT")],
    )
    assert {(e.source, e.target, e.weight) for e in await store.query_edges(tenant)} == {
        (old.id, a.id, 1.0),
        (a.id, b.id, 1.0),
    }
    hidden = await store.add_node(tenant.child("user", "u2"), fact("hidden"))
    c = fact("c")
    with pytest.raises(NotFoundError):
        await store.add_nodes(tenant, [c], edges=[MemoryEdge(source=hidden.id, target=c.id)])
    assert await store.get_node(tenant, c.id) is None
    assert len(await store.query_edges(tenant)) == 2


async def test_a_write_after_another_process_erased_the_scope_is_kept(
    store: GraphStore, conn: Neo4jConnection, tenant: Scope
) -> None:
    """This process knows the scope exists (its per-process cache); another erases it; the next
    write creates the scope again and lands — it is not dropped without a word."""
    user = tenant.child("user", "kim")
    await store.add_node(user, fact("before"))
    other_process = GraphStore(conn)  # its own cache, as another process has
    assert await other_process.delete_subtree(user) == 1

    written = await store.add_node(user, fact("after"))

    assert [n.id for n in await store.query_subtree(user)] == [written.id]
    assert await store.get_node(user, written.id) is not None


async def test_vectors_and_locked_fact_writes_after_another_process_erased_the_scope_are_kept(
    store: GraphStore, conn: Neo4jConnection, tenant: Scope
) -> None:
    memory = Memory(store, HashingEmbeddings())
    user = tenant.child("user", "lee")
    await store.add_node(user, fact("before"))
    await GraphStore(conn).delete_subtree(user)  # another process's erase
    await store.add_vectors(user, ["vec-1"], [[1.0] + [0.0] * 383], documents=["a vector"])
    assert [n.id for n in await store.query_subtree(user)] == ["vec-1"]

    await GraphStore(conn).delete_subtree(user)
    remembered = await memory.remember(user, "favourite tea", "Green tea.")  # the locked fact write

    assert [n.id for n in await store.query_subtree(user)] == [remembered.id]


async def test_traverse_is_breadth_first_and_bounded(store: GraphStore, tenant: Scope) -> None:
    chain = await store.add_nodes(tenant, [fact(f"n{i}") for i in range(5)])
    await store.upsert_edges(
        tenant,
        [MemoryEdge(source=x.id, target=y.id, relationship="NEXT") for x, y in itertools.pairwise(chain)],
    )
    assert [n.label for n in await store.traverse(tenant, chain[0].id, 2)] == ["n1", "n2"]
    assert len(await store.traverse(tenant, chain[0].id, 10)) == 4
    assert await store.traverse(tenant, chain[0].id, 0) == []


async def test_query_subtree_and_ownership(store: GraphStore, tenant: Scope) -> None:
    child = tenant.child("user", "u1")
    root_fact = await store.add_node(tenant, fact("org-wide"))
    child_fact = await store.add_node(child, fact("personal"))
    assert {n.id for n in await store.query_subtree(tenant)} == {root_fact.id, child_fact.id}
    assert {n.id for n in await store.query_subtree(child)} == {child_fact.id}
    assert {n.id for n in await store.query_nodes(child)} == {root_fact.id, child_fact.id}
    with pytest.raises(NotFoundError):  # a child may read, but not change, its ancestor's memory
        await store.update_node(child, root_fact.id, {"importance": 1.0})
    assert not await store.delete_node(child, root_fact.id)


async def test_vectors(store: GraphStore, tenant: Scope) -> None:
    dims = 384
    vec = lambda i: [1.0 if j == i else 0.0 for j in range(dims)]  # noqa: E731
    await store.add_vectors(tenant, ["v1", f"{tenant.id}-v2"], [vec(0), vec(1)], documents=["one", "two"])
    assert await store.count_vectors(tenant) == 2
    hits = await store.search_vectors(tenant, vec(1), top_k=1)
    assert hits[0].id == f"{tenant.id}-v2" and hits[0].score == pytest.approx(1.0)
    assert await store.delete_vectors(tenant, ["v1"]) == 1
    assert await store.count_vectors(tenant) == 1
    assert await store.delete_subtree_vectors(tenant) == 1
    assert await store.count_vectors(tenant) == 0
