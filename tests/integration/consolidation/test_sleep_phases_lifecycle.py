"""Phases 3 prune_orphans, 8 working_ttl, 9 decay_importance, 9.2 expire_durability,
9.5 prune_retracted — and restore within the grace period."""

from __future__ import annotations

import pytest

from hippograph.audit import list_audit
from hippograph.consolidation import Phase
from hippograph.errors import ConflictError, NotFoundError
from hippograph.models import Durability, Layer, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import (
    DAY,
    HOUR,
    MINUTE,
    NOW,
    event,
    fact,
    mem,
    nodes_by_label,
)


async def test_prune_orphans_peels_idle_low_importance_and_keeps_the_exempt(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    home = tenant.child("user", "u")
    old = NOW - 8 * DAY
    await store.add_node(tenant, fact("ancestor orphan", at=old, importance=2.0))
    nodes = await store.add_nodes(
        home,
        [
            fact("orphan", at=old, importance=3.0),
            fact("chain end", at=old, importance=3.0),
            fact("chain middle", at=old, importance=3.0),
            fact("anchor", at=old, importance=6.0),
            fact("hub", at=old, importance=3.0),
            fact("leaf one", at=old, importance=5.0),
            fact("leaf two", at=old, importance=5.0),
            fact("recently read", at=old, importance=3.0, last_accessed_at=NOW - DAY),
            fact("fresh", at=NOW - 6 * DAY, importance=3.0),
            fact("SOUL:alice", at=old, importance=2.0),
            fact("AGENT_IDENTITY", at=old, importance=2.0),
            fact("META:stuff", at=old, importance=2.0),
            fact("retracted", at=old, importance=2.0, retracted=True, retracted_at=NOW - DAY),
            event("old event", at=old, importance=3.0),
            event("ttl gone", at=NOW - HOUR, ttl=60.0),
            fact("ttl not yet", at=NOW - HOUR, ttl=2 * HOUR, importance=3.0),
        ],
    )
    by = {n.label: n for n in nodes}
    for a, b in [
        ("chain end", "chain middle"),
        ("chain middle", "anchor"),
        ("hub", "leaf one"),
        ("hub", "leaf two"),
    ]:
        await store.link(home, by[a].id, by[b].id, Relationship.RELATES_TO)
    report = await make().run(home, only=[Phase.PRUNE_ORPHANS])
    assert report.phase(Phase.PRUNE_ORPHANS).counts == {"expired": 1, "orphans": 3, "passes": 3}  # type: ignore[union-attr]
    left = set(await nodes_by_label(store, tenant))
    assert {"orphan", "chain end", "chain middle", "ttl gone"}.isdisjoint(left)
    assert {
        "ancestor orphan",
        "anchor",
        "hub",
        "leaf one",
        "leaf two",
        "recently read",
        "fresh",
        "SOUL:alice",
        "AGENT_IDENTITY",
        "META:stuff",
        "retracted",
        "old event",
        "ttl not yet",
    } <= left
    again = await make().run(home, only=[Phase.PRUNE_ORPHANS])
    assert again.phase(Phase.PRUNE_ORPHANS).counts == {"expired": 0, "orphans": 0, "passes": 1}  # type: ignore[union-attr]


async def test_working_ttl_deletes_expired_working_memory(store: GraphStore, tenant: Scope, make: Make) -> None:
    def work(label: str, age: float, **kw: object) -> object:
        return mem(Layer.WORKING, label, at=NOW - age, **kw)

    await store.add_nodes(
        tenant,
        [
            work("ttl passed", 2 * HOUR, ttl=HOUR, durability=Durability.TRANSIENT),
            work("thinking kept a day", 2 * HOUR, ttl=DAY, durability=Durability.TRANSIENT),
            work("transient, no ttl, old", 61 * MINUTE, durability=Durability.TRANSIENT),
            work("transient, no ttl, young", 30 * MINUTE, durability=Durability.TRANSIENT),
            work("durable turn", 3 * DAY),
            work("expired", MINUTE, durability=Durability.EXPIRED),
            fact("a fact is not working memory", at=NOW - 3 * DAY, durability=Durability.TRANSIENT),
        ],
    )  # type: ignore[list-item]
    report = await make().run(tenant, only=[Phase.WORKING_TTL])
    assert report.phase(Phase.WORKING_TTL).counts == {"deleted": 3}  # type: ignore[union-attr]
    assert set(await nodes_by_label(store, tenant)) == {
        "thinking kept a day",
        "transient, no ttl, young",
        "durable turn",
        "a fact is not working memory",
    }


async def test_decay_lowers_idle_facts_once_per_interval_with_exemptions(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    idle = NOW - 40 * DAY
    await store.add_nodes(
        tenant,
        [
            fact("idle", at=idle),
            fact("idle but read", at=idle, last_accessed_at=NOW - DAY),
            fact("important", at=idle, importance=8.0),
            fact("nearly important", at=idle, importance=7.9),
            fact("SOUL:bob", at=idle, importance=5.0),
            fact("AGENT_IDENTITY", at=idle, importance=5.0),
            fact("floor", at=idle, importance=1.0),
            fact("near floor", at=idle, importance=1.2),
            event("idle event", at=idle),
        ],
    )
    report = await make().run(tenant, only=[Phase.DECAY_IMPORTANCE])
    assert report.phase(Phase.DECAY_IMPORTANCE).counts == {"decayed": 3}  # type: ignore[union-attr]
    got = {k: n.importance for k, n in (await nodes_by_label(store, tenant)).items()}
    assert got == {
        "idle": 4.5,
        "idle but read": 5.0,
        "important": 8.0,
        "nearly important": 7.4,
        "SOUL:bob": 5.0,
        "AGENT_IDENTITY": 5.0,
        "floor": 1.0,
        "near floor": 1.0,
        "idle event": 5.0,
    }
    again = await make(now=NOW + HOUR).run(tenant, only=[Phase.DECAY_IMPORTANCE])
    assert again.phase(Phase.DECAY_IMPORTANCE).counts == {"decayed": 0}  # type: ignore[union-attr]
    next_day = await make(now=NOW + DAY).run(tenant, only=[Phase.DECAY_IMPORTANCE])
    assert next_day.phase(Phase.DECAY_IMPORTANCE).counts == {"decayed": 2}  # type: ignore[union-attr]
    assert (await nodes_by_label(store, tenant))["idle"].importance == 4.0


async def test_expire_durability_soft_retracts_with_an_explanation(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    await store.add_nodes(
        tenant,
        [
            fact("marked expired", durability=Durability.EXPIRED),
            fact("transient two days", at=NOW - 2 * DAY, durability=Durability.TRANSIENT),
            fact("transient an hour", at=NOW - HOUR, durability=Durability.TRANSIENT),
            fact("no longer valid", valid_until=NOW - MINUTE),
            fact("still valid", valid_until=NOW + DAY),
            fact("durable"),
        ],
    )
    report = await make().run(tenant, only=[Phase.EXPIRE_DURABILITY])
    assert report.phase(Phase.EXPIRE_DURABILITY).counts == {  # type: ignore[union-attr]
        "retracted": 3,
        "expired": 1,
        "transient": 1,
        "past_valid_until": 1,
    }
    got = await nodes_by_label(store, tenant)
    assert {k for k, n in got.items() if n.retracted} == {
        "marked expired",
        "transient two days",
        "no longer valid",
    }
    gone = got["no longer valid"]
    assert gone.retracted_at == NOW
    assert gone.retraction == {
        "phase": "expire_durability",
        "rule": "valid_until<=now",
        "reason": "the fact is no longer valid",
        "merged_into": None,
    }
    assert got["transient two days"].retraction["rule"] == "transient>ttl"  # type: ignore[index]
    # what the store's visible reads return no longer includes them
    visible = {n.label for n in await store.query_nodes(tenant, limit=None)}
    assert visible == {"transient an hour", "still valid", "durable"}
    again = await make().run(tenant, only=[Phase.EXPIRE_DURABILITY])
    assert again.phase(Phase.EXPIRE_DURABILITY).counts["retracted"] == 0  # type: ignore[union-attr]


async def test_prune_retracted_after_grace_own_scope_only_and_restore(
    conn: Neo4jConnection, store: GraphStore, tenant: Scope, make: Make
) -> None:
    home = tenant.child("user", "u")
    why = {
        "phase": "expire_durability",
        "rule": "valid_until<=now",
        "reason": "test",
        "merged_into": None,
    }
    old, recent = NOW - 8 * DAY, NOW - 2 * DAY
    await store.add_node(tenant, fact("ancestor's", retracted=True, retracted_at=old, retraction=why))
    pruned, kept, alive = await store.add_nodes(
        home,
        [
            fact("retracted 8 days ago", retracted=True, retracted_at=old, retraction=why),
            fact("retracted 2 days ago", retracted=True, retracted_at=recent, retraction=why),
            fact("alive"),
        ],
    )
    report = await make().run(home, only=[Phase.PRUNE_RETRACTED])
    assert report.phase(Phase.PRUNE_RETRACTED).counts == {"deleted": 1}  # type: ignore[union-attr]
    assert set(await nodes_by_label(store, tenant)) == {
        "ancestor's",
        "retracted 2 days ago",
        "alive",
    }

    sleeper = make()
    with pytest.raises(NotFoundError):
        await sleeper.restore(home, pruned.id, "alice")
    with pytest.raises(ConflictError, match="not retracted"):
        await sleeper.restore(home, alive.id, "alice")
    with pytest.raises(ConflictError, match="too late"):
        await make(now=NOW + 6 * DAY).restore(home, kept.id, "alice")
    with pytest.raises(NotFoundError):  # the ancestor's memory is not this scope's to restore
        await sleeper.restore(home, (await nodes_by_label(store, tenant))["ancestor's"].id, "alice")
    entry = await sleeper.restore(home, kept.id, "alice")
    assert (entry.actor, entry.action, entry.target, entry.at) == ("alice", "restore", kept.id, NOW)
    assert entry.detail["retraction"] == why and entry.detail["retracted_at"] == recent
    restored = await store.get_node(home, kept.id)
    assert restored is not None and not restored.retracted and restored.retraction is None
    assert [e.id for e in await list_audit(conn, tenant)] == [entry.id]
    assert [e.id for e in await list_audit(conn, tenant.child("user", "other"))] == []


async def test_a_restored_memory_is_not_retracted_again_by_the_same_rule(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    node = await store.add_node(tenant, fact("ended", valid_until=NOW - DAY))
    await make().run(tenant, only=[Phase.EXPIRE_DURABILITY])
    await make().restore(tenant, node.id, "bob")
    report = await make(now=NOW + DAY).run(tenant, only=[Phase.EXPIRE_DURABILITY])
    assert report.phase(Phase.EXPIRE_DURABILITY).counts["retracted"] == 0  # type: ignore[union-attr]
    again = await store.get_node(tenant, node.id)
    assert again is not None and not again.retracted
