"""Phases 1 strengthen, 1.5 cooccurrence, 2 tag_risk, 2.5 pending_edges — one crafted graph each."""

from __future__ import annotations

import json

from hippograph.consolidation import Phase
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import (
    DAY,
    HOUR,
    MINUTE,
    NOW,
    edges_of,
    event,
    fact,
    mem,
    nodes_by_label,
    pending,
    pending_links,
)


async def test_strengthen_counts_accesses_since_last_time(store: GraphStore, tenant: Scope, make: Make) -> None:
    home = tenant.child("user", "u")
    await store.add_node(tenant, fact("ancestor", access_count=9))  # above the subtree: untouched
    await store.add_nodes(
        home,
        [
            fact("read twice", access_count=2),
            fact("spread four times", spreading_access_count=4),
            fact("one and a half", access_count=1, spreading_access_count=1),
            fact("near the top", access_count=3, importance=9.8),
            fact("at the top", access_count=5, importance=10.0),
            fact("retracted", access_count=5, retracted=True, retracted_at=NOW),
        ],
    )
    report = await make().run(home, only=[Phase.STRENGTHEN])
    assert report.phase(Phase.STRENGTHEN).counts == {"strengthened": 3, "seen_again": 4}  # type: ignore[union-attr]
    got = {k: n.importance for k, n in (await nodes_by_label(store, tenant)).items()}
    assert got == {
        "ancestor": 5.0,
        "read twice": 5.5,
        "spread four times": 5.5,
        "one and a half": 5.0,
        "near the top": 10.0,
        "at the top": 10.0,
        "retracted": 5.0,
    }

    again = await make().run(home, only=[Phase.STRENGTHEN])
    assert again.phase(Phase.STRENGTHEN).counts == {"strengthened": 0, "seen_again": 0}  # type: ignore[union-attr]
    read_twice = (await nodes_by_label(store, home))["read twice"]
    await store.update_node(home, read_twice.id, {"access_count": 4})  # two more reads
    third = await make().run(home, only=[Phase.STRENGTHEN])
    assert third.phase(Phase.STRENGTHEN).counts == {"strengthened": 1, "seen_again": 1}  # type: ignore[union-attr]
    assert (await nodes_by_label(store, home))["read twice"].importance == 6.0


def _time_neighbours(points: list[tuple[str, str, float]], cap: int, window: float) -> set[frozenset[str]]:
    """Reference implementation of the pairing rule, for (id, scope_key, t) points."""
    order = sorted(points, key=lambda p: (p[2], p[0]))

    def related(a: str, b: str) -> bool:
        return a == b or a.startswith(b + "/") or b.startswith(a + "/")

    pairs = set()
    for i, (pid, key, t) in enumerate(order):
        for other, okey, ot in order[i + 1 : i + 1 + cap // 2]:
            if ot - t <= window and related(key, okey):
                pairs.add(frozenset((pid, other)))
    return pairs


async def test_cooccurrence_links_neighbours_in_time_within_the_degree_cap(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    home, child, sibling = (
        tenant.child("user", "u"),
        tenant.child("user", "u").child("session", "s"),
        tenant.child("user", "v"),
    )
    base = NOW - 2 * DAY
    burst = [fact(f"burst {i}", at=base + i * MINUTE, nid=f"{tenant.id}-b{i}") for i in range(9)]
    lonely = fact("an hour later", at=base + 60 * MINUTE, nid=f"{tenant.id}-late")
    deep = event("in the session", at=base + 4.5 * MINUTE, nid=f"{tenant.id}-deep")
    other = fact("sibling at the same time", at=base + 4.4 * MINUTE, nid=f"{tenant.id}-sib")
    work = mem(Layer.WORKING, "working is not linked", at=base + 4.6 * MINUTE)
    busy = [fact(f"yesterday {i}", at=base - DAY + i * HOUR) for i in range(4)]
    await store.add_nodes(home, [*burst, lonely, work, *busy])
    await store.add_node(child, deep)
    await store.add_node(sibling, other)
    for b in busy:  # burst 4 already has four CO_OCCURRED edges: four more would pass the cap
        await store.link(home, burst[4].id, b.id, Relationship.CO_OCCURRED, weight=0.3)

    report = await make().run(home, only=[Phase.COOCCURRENCE])
    points = [(n.id, home.key, n.updated_at) for n in [*burst, lonely]] + [(deep.id, child.key, deep.updated_at)]
    expected = {p for p in _time_neighbours(points, cap=5, window=15 * MINUTE) if burst[4].id not in p}
    edges = [e for e in await edges_of(store, child, Relationship.CO_OCCURRED) if e.created_at == NOW]
    assert {frozenset((e.source, e.target)) for e in edges} == expected
    assert report.phase(Phase.COOCCURRENCE).counts == {"edges": len(expected)}  # type: ignore[union-attr]
    degree: dict[str, int] = {}
    for e in edges:
        degree[e.source] = degree.get(e.source, 0) + 1
        degree[e.target] = degree.get(e.target, 0) + 1
        assert e.weight == 0.3 and e.provenance.value == "synthetic" and e.uses == 0
        assert e.scope_key == (child.key if deep.id in (e.source, e.target) else home.key)
    assert max(degree.values()) <= 4 and lonely.id not in degree and work.id not in degree
    assert burst[4].id not in degree and len(expected) == 13
    assert await edges_of(store, sibling, Relationship.CO_OCCURRED) == []

    again = await make(now=NOW + 60).run(home, only=[Phase.COOCCURRENCE])
    assert again.phase(Phase.COOCCURRENCE).counts == {"edges": 0}  # type: ignore[union-attr]
    first_run_from_scratch = await make().run(home, only=[Phase.COOCCURRENCE])  # watermark kept
    assert first_run_from_scratch.phase(Phase.COOCCURRENCE).counts == {"edges": 0}  # type: ignore[union-attr]


async def test_cooccurrence_links_a_large_scope_within_the_default_transaction_memory(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    # Rows fed to CALL … IN TRANSACTIONS carry every list of the statement before them, and
    # Neo4j 2026 counts such a list once per buffered row: when one statement both paired and
    # wrote, 1,000 memories already needed more than the default 512 MiB of transaction memory.
    home = tenant.child("user", "big")
    base = NOW - 2 * DAY
    facts = [fact(f"step {i}", at=base + i * MINUTE, nid=f"{tenant.id}-s{i}") for i in range(2000)]
    for start in range(0, len(facts), 500):
        await store.add_nodes(home, facts[start : start + 500])

    report = await make().run(home, only=[Phase.COOCCURRENCE])

    # a minute apart, a 15-minute window, reach 2: each memory pairs with its next two
    assert report.phase(Phase.COOCCURRENCE).counts == {"edges": 2 * 2000 - 3}  # type: ignore[union-attr]
    edges = await edges_of(store, home, Relationship.CO_OCCURRED)
    assert len(edges) == 2 * 2000 - 3 and len({frozenset((e.source, e.target)) for e in edges}) == len(edges)


async def test_tag_risk_flags_risk_words_once(store: GraphStore, tenant: Scope, make: Make) -> None:
    await store.add_nodes(
        tenant,
        [
            fact("deploy", content="The deploy ended in FAILURE at noon", properties={"team": "ops"}),
            fact("errors", content="two Errors in the log"),
            fact("terror", content="a terror film; nothing risky here? no: 'risky' starts with risk"),
            fact("weather", content="A sunny day\nwith no surprises"),
            fact("multiline", content="first line\nsecond line names a threat"),
        ],
    )
    report = await make().run(tenant, only=[Phase.TAG_RISK])
    assert report.phase(Phase.TAG_RISK).counts == {"tagged": 4}  # type: ignore[union-attr]
    got = await nodes_by_label(store, tenant)
    assert got["deploy"].properties == {"team": "ops", "risk": True, "risk_tagged_at": NOW}
    assert got["weather"].properties == {}
    assert {k for k, n in got.items() if n.properties.get("risk")} == {
        "deploy",
        "errors",
        "terror",
        "multiline",
    }
    again = await make(now=NOW + 1).run(tenant, only=[Phase.TAG_RISK])
    assert again.phase(Phase.TAG_RISK).counts == {"tagged": 0}  # type: ignore[union-attr]
    assert (await nodes_by_label(store, tenant))["deploy"].properties["risk_tagged_at"] == NOW


async def test_pending_edges_become_inferred_edges_and_are_consumed(
    conn: Neo4jConnection, store: GraphStore, tenant: Scope, make: Make
) -> None:
    child, sibling = tenant.child("user", "u"), tenant.child("user", "v")
    root_fact = await store.add_node(tenant, fact("root fact"))
    a, b, c = await store.add_nodes(child, [fact("a"), fact("b"), fact("c")])
    hidden = await store.add_node(sibling, fact("sibling's"))
    await store.link(child, b.id, c.id, Relationship.RELATES_TO)
    await pending(
        conn,
        child,
        (a.id, b.id, 0.7),
        (b.id, a.id, 0.4),  # one edge, best score
        (b.id, c.id, 0.9),  # already linked: skipped
        (a.id, root_fact.id, 0.0),  # an ancestor's fact is visible: default weight
        (a.id, "no-such-memory", 0.5),  # gone: consumed
        (a.id, hidden.id, 0.8),
    )  # a sibling's memory is not visible: consumed
    await pending(conn, sibling, (hidden.id, root_fact.id, 0.6))  # outside the subtree: kept
    report = await make().run(child, only=[Phase.PENDING_EDGES])
    assert report.phase(Phase.PENDING_EDGES).counts == {"edges": 2, "consumed": 6}  # type: ignore[union-attr]
    inferred = await edges_of(store, child, Relationship.INFERRED)
    got = {frozenset((e.source, e.target)): e for e in inferred}
    assert set(got) == {frozenset((a.id, b.id)), frozenset((a.id, root_fact.id))}
    ab, ar = got[frozenset((a.id, b.id))], got[frozenset((a.id, root_fact.id))]
    assert ab.weight == 0.7 and ab.provenance.value == "inferred" and ab.scope_key == child.key
    assert ar.weight == 0.5 and ar.created_at == NOW
    assert await pending_links(conn, child) == []
    assert [p["source"] for p in await pending_links(conn, sibling)] == [hidden.id]
    again = await make().run(child, only=[Phase.PENDING_EDGES])
    assert again.phase(Phase.PENDING_EDGES).counts == {"edges": 0, "consumed": 0}  # type: ignore[union-attr]
    assert json.dumps(sorted(e.id for e in await edges_of(store, child, Relationship.INFERRED))) == json.dumps(
        sorted(e.id for e in inferred)
    )
