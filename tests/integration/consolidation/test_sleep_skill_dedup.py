"""Phase 12 procedural_promotion: near-duplicate skills merge by embedding similarity (the
reference's 0.65), not by exact label — within one scope, or covered by an ancestor's skill;
never across scopes that cannot see each other."""

from __future__ import annotations

import random

from hippograph.audit import list_audit
from hippograph.consolidation import Phase
from hippograph.models import Layer, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import DAY, NOW, edges_of, event, mem, near, unit_vector


def _events(label: str, vector: list[float], rng: random.Random, n: int = 3) -> list[MemoryNode]:
    at = NOW - 2 * DAY
    return [event(f"{label} #{i}", at=at + i, embedding=near(vector, rng, 0.3)) for i in range(n)]


async def _skills(store: GraphStore, scope: Scope) -> list[MemoryNode]:
    return await store.query_subtree(scope, {"layers": [Layer.PROCEDURAL]}, limit=None)


async def test_a_near_duplicate_action_joins_the_scopes_draft(store: GraphStore, tenant: Scope, make: Make) -> None:
    rng = random.Random(12)
    home, sibling = tenant.child("user", "u"), tenant.child("user", "v")
    restart = unit_vector(rng)
    draft = mem(
        Layer.PROCEDURAL, "restart web server", at=NOW - 3 * DAY, embedding=restart,
        properties={"status": "draft", "active": False, "authored": False, "occurrences": 3,
                    "steps": ["restart it"], "evidence_ids": []},
    )  # fmt: skip
    await store.add_node(home, draft)
    await store.add_nodes(home, _events("reboot the web box", restart, rng))
    await store.add_nodes(sibling, _events("reboot the web box", restart, rng))

    report = await make().run(tenant, only=[Phase.PROCEDURAL_PROMOTION])

    counts = report.phase(Phase.PROCEDURAL_PROMOTION).counts  # type: ignore[union-attr]
    assert counts["candidates"] == 2 and counts["merged"] == 1 and counts["drafts"] == 1
    mine = await _skills(store, home)
    assert [s.id for s in mine if s.scope_key == home.key] == [draft.id]  # joined, no second draft
    joined = next(s for s in mine if s.id == draft.id)
    assert joined.properties["status"] == "draft" and joined.properties["occurrences"] == 6
    assert "reboot the web box" in joined.properties["merged_patterns"]  # type: ignore[operator]
    steps = joined.properties["steps"]
    assert isinstance(steps, list) and steps[0] == "restart it" and len(steps) > 1
    derived = [e for e in await edges_of(store, home, Relationship.DERIVED_FROM) if e.source == draft.id]
    assert len(derived) == 3
    theirs = [s for s in await _skills(store, sibling) if s.scope_key == sibling.key]
    assert [s.label for s in theirs] == ["reboot the web box"]  # a sibling's pattern never merges into home's draft
    audit = [a for a in await list_audit(store.conn, tenant) if a.action == "skill.merge"]
    assert [(a.target, a.scope_key, a.actor) for a in audit] == [(draft.id, home.key, "consolidation")]

    again = await make().run(tenant, only=[Phase.PROCEDURAL_PROMOTION])
    assert again.phase(Phase.PROCEDURAL_PROMOTION).counts["merged"] == 0  # type: ignore[union-attr]
    assert len([a for a in await list_audit(store.conn, tenant) if a.action == "skill.merge"]) == 1


async def test_similar_patterns_become_one_draft_and_an_ancestors_skill_covers_them(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    rng = random.Random(13)
    home = tenant.child("user", "u")
    deploy, backup, unrelated = unit_vector(rng), unit_vector(rng), unit_vector(rng)
    await store.add_node(
        tenant,
        mem(Layer.PROCEDURAL, "authored:Nightly backup", at=NOW - 9 * DAY, embedding=backup,
            properties={"status": "approved", "active": True, "authored": True}),
    )  # fmt: skip
    await store.add_nodes(
        home,
        [
            *_events("deploy the app", deploy, rng),
            *_events("ship app release", deploy, rng, n=4),
            *_events("copy database offsite", backup, rng),
            *_events("water the plants", unrelated, rng),
        ],
    )

    report = await make().run(home, only=[Phase.PROCEDURAL_PROMOTION])

    counts = report.phase(Phase.PROCEDURAL_PROMOTION).counts  # type: ignore[union-attr]
    assert counts["candidates"] == 4 and counts["drafts"] == 2 and counts["covered"] == 1
    drafts = {s.label: s for s in await _skills(store, home) if s.scope_key == home.key}
    assert set(drafts) == {"ship app release", "water the plants"}
    shipped = drafts["ship app release"]
    assert shipped.properties["occurrences"] == 7 and len(shipped.properties["evidence_ids"]) == 7  # type: ignore[arg-type]
    assert all(s.properties["status"] == "draft" and s.properties["active"] is False for s in drafts.values())


async def test_without_embeddings_labels_still_decide(store: GraphStore, tenant: Scope, make: Make) -> None:
    home = tenant.child("user", "u")
    await store.add_nodes(home, [event("rotate the keys", at=NOW - DAY + i) for i in range(3)])
    await store.add_nodes(home, [event("renew the certificates", at=NOW - DAY + i) for i in range(3)])
    report = await make().run(home, only=[Phase.PROCEDURAL_PROMOTION])
    assert report.phase(Phase.PROCEDURAL_PROMOTION).counts["drafts"] == 2  # type: ignore[union-attr]
