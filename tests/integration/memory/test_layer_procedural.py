"""Procedural memory ("how"): skills with steps; draft → approved / rejected with an audit entry
each; only approved, active skills are recalled; a deeper scope's skill shadows a shallower one
of the same name; similar learned skills merge, authored ones never."""

from __future__ import annotations

import pytest

from hippograph.audit import list_audit
from hippograph.errors import InvalidInputError, NotFoundError
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from tests.support.memory_internals import internals

STEPS = ["build the image", "push it to the registry", "restart the service"]


async def test_a_learned_skill_starts_as_an_inactive_draft(memory: Memory, tenant: Scope) -> None:
    skill = await internals(memory).procedural.store_skill(tenant, "deploy the web service", STEPS, context="ops")
    assert skill.layer is Layer.PROCEDURAL and skill.label == "deploy the web service"
    assert skill.content == "1. build the image\n2. push it to the registry\n3. restart the service"
    assert skill.properties == {"steps": STEPS, "context": "ops", "status": "draft", "active": False,
                                "authored": False}  # fmt: skip
    assert [d.id for d in await internals(memory).procedural.drafts(tenant)] == [skill.id]
    assert await internals(memory).procedural.query_skills(tenant) == []
    assert [s.id for s in await internals(memory).procedural.query_skills(tenant, include_inactive=True)] == [skill.id]


@pytest.mark.parametrize(("name", "steps"), [("", ["a"]), ("ok", "not a list"), ("ok", ["fine", " "]), ("ok", [3])])
async def test_bad_skills_are_refused(memory: Memory, tenant: Scope, name: str, steps: object) -> None:
    with pytest.raises(InvalidInputError):
        await internals(memory).procedural.store_skill(tenant, name, steps)  # type: ignore[arg-type]
    assert await internals(memory).procedural.count(tenant) == 0


async def test_approve_reject_and_toggle_are_audited(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    a = await pm.store_skill(tenant, "rotate the logs every night", ["gzip old logs", "delete after 30 days"])
    b = await pm.store_skill(tenant, "greet new users warmly", ["say hello", "offer the tour"])
    approved = await pm.approve_skill(tenant, a.id, actor="alice")
    assert approved.properties["status"] == "approved" and approved.properties["active"] is True
    rejected = await pm.reject_skill(tenant, b.id, actor="alice", reason="too vague")
    assert rejected.properties["status"] == "rejected" and rejected.properties["rejection_reason"] == "too vague"
    off = await pm.toggle_skill(tenant, a.id, actor="bob", active=False)
    assert off.properties["active"] is False and await pm.query_skills(tenant) == []
    with pytest.raises(InvalidInputError, match="active"):
        await pm.toggle_skill(tenant, b.id, actor="bob", active=True)
    with pytest.raises(InvalidInputError, match="actor"):
        await pm.approve_skill(tenant, b.id, actor="  ")
    audit = await list_audit(internals(memory).store.conn, tenant)
    assert sorted((e.actor, e.action, e.target) for e in audit) == sorted([
        ("alice", "skill.approve", a.id), ("alice", "skill.reject", b.id), ("bob", "skill.deactivate", a.id),
    ])  # fmt: skip


async def test_a_child_cannot_decide_on_its_parents_skill(memory: Memory, tenant: Scope) -> None:
    skill = await internals(memory).procedural.store_skill(
        tenant, "file the quarterly report", ["collect numbers", "send it"]
    )
    with pytest.raises(NotFoundError):
        await internals(memory).procedural.approve_skill(tenant.child("user", "u"), skill.id, actor="mallory")
    with pytest.raises(NotFoundError):
        await internals(memory).procedural.approve_skill(tenant, "no-such-skill", actor="alice")
    stored = await internals(memory).store.get_node(tenant, skill.id)
    assert stored is not None and stored.properties["status"] == "draft"
    assert await list_audit(internals(memory).store.conn, tenant) == []


async def test_authored_skills_are_approved_at_once_and_never_merged(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    seeded = await pm.seed_authored_skill(tenant, "deploy the web service", STEPS)
    assert seeded.label == "authored:deploy the web service" and seeded.importance == 7.0
    assert seeded.properties["status"] == "approved" and seeded.properties["authored"] is True
    learned = await pm.store_skill(tenant, "deploy the web service", [*STEPS, "check the health page"])
    twin = await pm.seed_authored_skill(tenant, "deploy the web service", STEPS)
    assert len({seeded.id, learned.id, twin.id}) == 3
    stored = await internals(memory).store.get_node(tenant, seeded.id)
    assert stored is not None and stored.properties["steps"] == STEPS


async def test_a_similar_learned_skill_merges_steps_label_and_importance(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    first = await pm.store_skill(tenant, "deploy the web service", STEPS[:2], importance=4.0)
    second = await pm.store_skill(tenant, "deploy the web service now", [STEPS[1], STEPS[2]], importance=6.0)
    assert second.id == first.id
    merged = await internals(memory).store.get_node(tenant, first.id)
    assert merged is not None
    assert merged.properties["steps"] == STEPS and merged.label == "deploy the web service now"
    assert merged.importance == 6.0 and await pm.count(tenant) == 1


async def test_short_skills_are_never_compared(memory: Memory, tenant: Scope) -> None:
    a = await internals(memory).procedural.store_skill(tenant, "ls", ["ls"])
    b = await internals(memory).procedural.store_skill(tenant, "ls", ["ls"])
    assert a.id != b.id


async def test_deeper_scope_shadows_shallower_in_queries_and_recall(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    team = tenant.child("team", "t")
    user = team.child("user", "u")
    org = await pm.store_skill(tenant, "Deploy", ["org way: ask the release manager"], status="approved")
    mine = await pm.store_skill(team, "deploy", ["team way: merge to main and wait"], status="approved")
    other = await pm.store_skill(tenant, "backup", ["snapshot the volumes nightly"], status="approved")
    seen = await pm.query_skills(user)
    assert sorted(s.id for s in seen) == sorted([mine.id, other.id])
    assert sorted(s.id for s in await pm.query_skills(tenant)) == sorted([org.id, other.id])
    items = await pm.retrieve(user, "how do we deploy", top_k=10)
    deploys = [i for i in items if i.node.label.casefold() == "deploy"]
    assert [i.node.id for i in deploys] == [mine.id] and deploys[0].scope_distance == 1


async def test_drafts_rejected_and_inactive_skills_are_never_recalled(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    draft = await pm.store_skill(tenant, "routine: water office plants", ["fill the green can"])
    rejected = await pm.store_skill(tenant, "routine: book meeting rooms", ["open calendar early"])
    await pm.reject_skill(tenant, rejected.id, actor="alice")
    inactive = await pm.store_skill(tenant, "routine: renew tls certificates", ["run certbot"], status="approved")
    await pm.toggle_skill(tenant, inactive.id, actor="alice", active=False)
    loose = await pm.write(tenant, "routine: order printer toner from the supplier")
    live = await pm.store_skill(
        tenant, "routine: archive stale tickets", ["close after ninety days"], status="approved"
    )
    assert loose is not None and len({draft.id, rejected.id, inactive.id, loose.id, live.id}) == 5
    assert loose.properties == {
        "status": "draft",
        "active": False,
    }  # the generic write makes a draft
    found = {i.node.id for i in await pm.retrieve(tenant, "routine", top_k=20)}
    found |= {i.node.id for i in (await memory.recall(tenant, "routine", top_k=20)).items}
    assert found == {live.id}


async def test_a_merge_never_changes_a_skills_review_state(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    approved = await pm.store_skill(tenant, "deploy the web service", STEPS[:2], status="approved")
    draft = await pm.store_skill(tenant, "deploy the web service", [*STEPS, "delete the database"])
    assert draft.id != approved.id and draft.properties["status"] == "draft"
    stored = await internals(memory).store.get_node(tenant, approved.id)
    assert stored is not None and stored.properties["steps"] == STEPS[:2]  # no unreviewed step slipped in
    again = await pm.store_skill(tenant, "deploy the web service today", STEPS[1:])
    assert again.id == draft.id  # drafts still merge with drafts
    rejected = await pm.reject_skill(tenant, draft.id, actor="alice")
    fresh = await pm.store_skill(tenant, "deploy the web service", STEPS, status="approved")
    assert fresh.id == approved.id and rejected.properties["status"] == "rejected"


async def test_render_shows_the_steps_without_the_authored_prefix(memory: Memory, tenant: Scope) -> None:
    skill = await internals(memory).procedural.seed_authored_skill(
        tenant, "log in", ["open the page", "password: hunter2"]
    )
    text = internals(memory).procedural.render_for_prompt(skill)
    assert text == "[procedural] log in: open the page → password: [REDACTED]"


async def test_a_parents_similar_skills_cannot_hide_the_scopes_own(memory: Memory, tenant: Scope) -> None:
    pm = internals(memory).procedural
    child = tenant.child("team", "t")
    for i in range(8):
        await pm.store_skill(tenant, f"deploy the web service variant {i}", ["build", "push"], importance=1.0 + i)
    own = await pm.store_skill(child, "deploy the web service for the team", ["build", "push", "notify"])
    again = await pm.store_skill(child, "deploy the web service", ["build", "push"])
    assert again.id == own.id and await pm.count(child) == 1


async def test_an_authored_skill_shadows_a_parents_skill_of_the_same_name_in_recall(
    memory: Memory, tenant: Scope
) -> None:
    pm = internals(memory).procedural
    child = tenant.child("team", "t")
    await pm.store_skill(tenant, "deploy", ["org way: ask the release manager"], status="approved")
    mine = await pm.seed_authored_skill(child, "deploy", ["team way: merge to main and wait"])
    assert [s.id for s in await pm.query_skills(child)] == [mine.id]
    items = await pm.retrieve(child, "how do we deploy", top_k=10)
    assert [i.node.id for i in items] == [mine.id]
