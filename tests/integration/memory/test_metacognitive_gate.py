"""The opt-in metacognitive gate: a registered skill that contradicts the scope's active core
preferences is flagged (kept as a draft, the reason in the op result and the audit) or refused
(not stored); off by default, and only preferences the scope may see count."""

from __future__ import annotations

from hippograph.audit import list_audit
from hippograph.embeddings import HashingEmbeddings
from hippograph.layers import GateMode
from hippograph.memory import Memory
from hippograph.ops import RegisterSkill
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.memory_internals import internals

FRIDAY = RegisterSkill(
    op="register_skill", name="Hotfix release",
    steps=["run the smoke tests", "deploy to production on Friday evening"], context="urgent fixes",
)  # fmt: skip
RESTART = RegisterSkill(op="register_skill", name="Clear cache", steps=["restart the production cluster"])
HARMLESS = RegisterSkill(op="register_skill", name="Rotate logs", steps=["compress old logs", "delete archives"])


async def _memory_with_preferences(store: GraphStore, tenant: Scope) -> tuple[Memory, Scope]:
    memory = Memory(store, HashingEmbeddings())
    team = tenant.child("team", "ops")
    await memory.remember(tenant, "PREFERENCE: release days", "We never deploy to production on Fridays.")
    await memory.remember(
        team, "PREFERENCE: change control", "Changes go through review.", properties={"avoid": ["restart production"]}
    )
    await memory.remember(tenant.child("team", "other"), "PREFERENCE: no logs", "Never delete archives.")
    return memory, team.child("user", "ana")


async def test_the_gate_is_off_by_default(store: GraphStore, tenant: Scope) -> None:
    memory, ana = await _memory_with_preferences(store, tenant)
    report = await memory.commit(ana, [FRIDAY, RESTART])
    assert [a.get("gate") for a in report.applied] == [None, None] and report.failed == []


async def test_refuse_keeps_a_contradicting_skill_out_with_the_reason(store: GraphStore, tenant: Scope) -> None:
    memory, ana = await _memory_with_preferences(store, tenant)

    report = await memory.commit(ana, [FRIDAY, RESTART, HARMLESS], auto_approve_skills=True, skill_gate="refuse")

    assert [f["index"] for f in report.failed] == [0, 1]
    assert "PREFERENCE: release days rules out 'deploy to production on Fridays'" in report.failed[0]["error"]
    assert "PREFERENCE: change control rules out 'restart production'" in report.failed[1]["error"]
    assert [a["index"] for a in report.applied] == [2]  # a sibling team's preference does not apply to ana
    skills = await internals(memory).procedural.query_skills(ana, include_inactive=True)
    assert [s.label for s in skills] == ["Rotate logs"]
    audit = [a for a in await list_audit(store.conn, tenant) if a.action == "skill.refuse"]
    assert sorted(str(a.detail["skill"]) for a in audit) == ["Clear cache", "Hotfix release"]
    assert all(a.actor == "metacognition" and a.scope_key == ana.key for a in audit)


async def test_flag_keeps_the_skill_as_a_draft_with_the_reason(store: GraphStore, tenant: Scope) -> None:
    memory, ana = await _memory_with_preferences(store, tenant)

    report = await memory.commit(ana, [FRIDAY, HARMLESS], auto_approve_skills=True, skill_gate=GateMode.FLAG)

    flagged, plain = report.applied
    assert flagged["gate"]["verdict"] == "flagged" and "release days" in flagged["gate"]["reason"]
    assert "gate" not in plain
    drafts = {d.label: d for d in await internals(memory).procedural.drafts(ana)}
    assert set(drafts) == {"Hotfix release"}  # flagged: never auto-approved
    assert drafts["Hotfix release"].properties["metacognition"]["verdict"] == "flagged"  # type: ignore[index,call-overload]
    assert [s.label for s in await internals(memory).procedural.query_skills(ana)] == ["Rotate logs"]
    audit = [a for a in await list_audit(store.conn, tenant) if a.action == "skill.flag"]
    assert [a.target for a in audit] == [flagged["id"]]


async def test_a_retracted_or_superseded_preference_no_longer_binds(store: GraphStore, tenant: Scope) -> None:
    memory = Memory(store, HashingEmbeddings())
    old = await memory.remember(
        tenant, "PREFERENCE: releases", "Never deploy to production on Fridays.", key="pref.release"
    )
    await memory.remember(tenant, "PREFERENCE: releases", "Friday releases are fine now.", key="pref.release")
    gone = await memory.remember(tenant, "PREFERENCE: restarts", "Do not restart production.")
    await memory.retract(tenant, gone.id, reason="policy changed", actor="admin")
    report = await memory.commit(tenant, [FRIDAY, RESTART], skill_gate="refuse")
    assert report.failed == [] and len(report.applied) == 2
    assert old.id not in {p.id for p in await internals(memory).gate.preferences(tenant)}
