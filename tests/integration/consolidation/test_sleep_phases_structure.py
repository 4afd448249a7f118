"""Phases 4 meta_nodes, 5 soul_corrections, 10 episodic_summary, 11 synthetic_links,
12 procedural_promotion and 13 semantic_merge — one crafted graph each."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from hippograph.consolidation import Phase, PhaseStatus
from hippograph.models import Layer, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import (
    DAY,
    MINUTE,
    NOW,
    edge,
    edges_of,
    event,
    fact,
    mem,
    near,
    nodes_by_label,
    unit_vector,
)


async def test_meta_nodes_cluster_by_label_prefix_never_metas(store: GraphStore, tenant: Scope, make: Make) -> None:
    child = tenant.child("user", "u")
    await store.add_nodes(
        tenant,
        [
            fact("Coffee: espresso"),
            fact("coffee: latte", importance=9.0),
            fact("COFFEE : mocha"),
            fact("coffee beans"),
            fact("tea: green"),
            fact("tea: black"),
            fact("META:coffee: old cluster"),
            fact("META:x 1"),
            fact("META:x 2"),
            fact("META:x 3"),
            fact("SOUL:me"),
            fact("the cat"),
            fact("the dog"),
            fact("the car"),
        ],
    )
    await store.add_nodes(tenant, [fact(f"project: task {i:02d}", importance=1.0 + i / 2) for i in range(12)])
    await store.add_nodes(child, [fact("coffee: cold brew"), fact("coffee: drip")])
    report = await make().run(tenant, only=[Phase.META_NODES])
    assert report.phase(Phase.META_NODES).counts == {"clusters": 2, "metas": 2, "edges": 14}  # type: ignore[union-attr]
    got = await nodes_by_label(store, tenant)
    metas = {k: n for k, n in got.items() if k in ("META:coffee", "META:project")}
    assert len(metas) == 2 and set(got) >= {"META:coffee", "META:project"}
    for meta in metas.values():
        assert meta.importance == 7.0 and meta.properties["meta"] is True and meta.scope_key == tenant.key
    clusters = await edges_of(store, tenant, Relationship.CLUSTERS)
    members = {e.target for e in clusters if e.source == metas["META:coffee"].id}
    assert members == {got[k].id for k in ("Coffee: espresso", "coffee: latte", "COFFEE : mocha", "coffee beans")}
    project = {e.target for e in clusters if e.source == metas["META:project"].id}
    assert project == {got[f"project: task {i:02d}"].id for i in range(2, 12)}  # the ten most important
    assert all(e.scope_key == tenant.key and e.provenance.value == "synthetic" for e in clusters)
    again = await make(now=NOW + DAY).run(tenant, only=[Phase.META_NODES])
    assert again.phase(Phase.META_NODES).counts == {"clusters": 2, "metas": 0, "edges": 0}  # type: ignore[union-attr]
    await store.add_node(child, fact("coffee: iced"))  # three in the child scope now: its own cluster
    third = await make().run(tenant, only=[Phase.META_NODES])
    assert third.phase(Phase.META_NODES).counts == {"clusters": 3, "metas": 1, "edges": 3}  # type: ignore[union-attr]


async def test_soul_corrections_apply_schema_keys_and_set_aside_others(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    corrections = [
        {"key": "name", "value": "Alice"},
        {"key": "age", "value": 30},
        {"key": "tone", "value": "dry"},
    ]
    soul = await store.add_node(tenant, fact("SOUL:alice", properties={"name": "Al", "corrections": corrections}))
    other = await store.add_node(tenant, fact("SOUL:bob", properties={"name": "Bob"}))
    skipped = await make().run(tenant, only=[Phase.SOUL_CORRECTIONS])
    phase = skipped.phase(Phase.SOUL_CORRECTIONS)
    assert phase is not None and phase.status is PhaseStatus.SKIPPED and "soul_schema" in (phase.skip_reason or "")
    report = await make(soul_schema=("name", "tone")).run(tenant, only=[Phase.SOUL_CORRECTIONS])
    assert report.phase(Phase.SOUL_CORRECTIONS).counts == {
        "profiles": 1,
        "applied": 2,
        "rejected": 1,
    }  # type: ignore[union-attr]
    got = await store.get_node(tenant, soul.id)
    assert got is not None and got.properties == {
        "name": "Alice",
        "tone": "dry",
        "corrected_at": NOW,
        "rejected_corrections": [{"key": "age", "value": 30}],
    }
    assert (await store.get_node(tenant, other.id)).properties == {"name": "Bob"}  # type: ignore[union-attr]
    again = await make(soul_schema=("name", "tone")).run(tenant, only=[Phase.SOUL_CORRECTIONS])
    assert again.phase(Phase.SOUL_CORRECTIONS).counts == {
        "profiles": 0,
        "applied": 0,
        "rejected": 0,
    }  # type: ignore[union-attr]


class FakeSummarizer:
    def __init__(self) -> None:
        self.calls: list[int] = []

    async def summarize(self, texts: Sequence[str]) -> str:
        self.calls.append(len(texts))
        return f"MODEL SUMMARY of {len(texts)}"


async def test_episodic_summary_folds_the_oldest_fifties(store: GraphStore, tenant: Scope, make: Make) -> None:
    home = tenant.child("user", "u")
    start = NOW - 90 * DAY
    events = [
        event(
            f"turn {i:03d}",
            at=start + i * 10 * MINUTE,
            content=f"User said thing {i}. More. End {i}.",
            nid=f"{tenant.id}-e{i:03d}",
            properties={"session_id": "s1"},
        )
        for i in range(160)
    ]
    facts = await store.add_nodes(home, [fact("cats"), fact("dogs")])
    await store.add_nodes(home, events)
    await store.upsert_edges(home, [edge(events[i], events[i + 1], Relationship.NEXT) for i in range(159)])
    await store.upsert_edges(
        home,
        [
            edge(events[3], facts[0], Relationship.MENTIONS),
            edge(events[7], facts[0], Relationship.MENTIONS),
            edge(events[120], facts[1], Relationship.MENTIONS),
        ],
    )
    quick = await make().quick_nap(home)
    assert quick.phase(Phase.EPISODIC_SUMMARY).counts["summaries"] == 1  # type: ignore[union-attr]
    assert quick.phase(Phase.EPISODIC_SUMMARY).counts["folded"] == 50  # type: ignore[union-attr]
    report = await make().run(home, only=[Phase.EPISODIC_SUMMARY])
    counts = report.phase(Phase.EPISODIC_SUMMARY).counts  # type: ignore[union-attr]
    assert (counts["summaries"], counts["folded"]) == (1, 50)  # 110 left > 100: one more fold
    left = await store.query_subtree(home, {"layers": ["episodic"]}, limit=None)
    summaries = sorted((n for n in left if n.label == "META:episodic_summary"), key=lambda n: n.occurred_at or 0)
    assert len(left) == 62 and len(summaries) == 2
    first, second = summaries
    assert first.importance == 6.0 and first.properties["summarized_ids"] == [e.id for e in events[:50]]
    assert first.properties["method"] == "extractive" and first.occurred_at == events[49].occurred_at
    assert first.content.startswith("Summary of 50 earlier episodes:\n- ")
    assert "User said thing 0. … End 0." in first.content and len(first.content) <= 4000
    mentions = [e for e in await edges_of(store, home, Relationship.MENTIONS) if e.target == facts[0].id]
    assert len(mentions) == 1 and mentions[0].source == first.id
    assert mentions[0].weight == 2.0 and set(mentions[0].source_episodic_ids) == {
        events[3].id,
        events[7].id,
    }
    nexts = {(e.source, e.target) for e in await edges_of(store, home, Relationship.NEXT)}
    assert (first.id, second.id) in nexts and (second.id, events[100].id) in nexts
    summarizes = await edges_of(store, home, Relationship.SUMMARIZES)
    assert [(e.source, e.target) for e in summarizes] == [(second.id, first.id)]
    again = await make().run(home, only=[Phase.EPISODIC_SUMMARY])
    assert again.phase(Phase.EPISODIC_SUMMARY).counts == {
        "summaries": 0,
        "folded": 0,
        "repointed": 0,
    }  # type: ignore[union-attr]

    model = FakeSummarizer()
    more = [event(f"late {i}", at=NOW - DAY + i, nid=f"{tenant.id}-l{i}") for i in range(50)]
    await store.add_nodes(home, more)  # 110 events: one fold, written by the model
    by_model = await make(model=model).run(home, only=[Phase.EPISODIC_SUMMARY])
    assert by_model.phase(Phase.EPISODIC_SUMMARY).counts["model_written"] == 1  # type: ignore[union-attr]
    assert model.calls == [50]
    assert "MODEL SUMMARY of 50" in {
        n.content for n in await store.query_subtree(home, {"label": "META:episodic_summary"})
    }


async def test_synthetic_links_for_facts_mentioned_together(store: GraphStore, tenant: Scope, make: Make) -> None:
    home = tenant.child("user", "u")
    f1, f2, f3, f4 = await store.add_nodes(home, [fact("f1"), fact("f2"), fact("f3"), fact("f4")])
    root = await store.add_node(tenant, fact("root fact"))
    old = [event(f"old {i}", at=NOW - 10 * DAY + i) for i in range(2)]
    recent = [event(f"recent {i}", at=NOW - DAY + i) for i in range(3)]
    await store.add_nodes(home, [*old, *recent])
    links = [
        (old[0], f3),
        (old[0], f4),
        (old[1], f3),
        (old[1], f4),  # together twice, but too old
        (recent[0], f1),
        (recent[0], f2),
        (recent[0], root),
        (recent[1], f1),
        (recent[1], f2),
        (recent[1], root),
        (recent[2], f1),
        (recent[2], f3),
    ]
    await store.upsert_edges(home, [edge(e, f, Relationship.MENTIONS) for e, f in links])
    report = await make(synthetic_recent_episodes=3).run(home, only=[Phase.SYNTHETIC_LINKS])
    assert report.phase(Phase.SYNTHETIC_LINKS).counts == {"pairs": 3, "edges": 3}  # type: ignore[union-attr]
    got = await edges_of(store, home, Relationship.SYNTHETIC_LINK)
    assert {frozenset((e.source, e.target)) for e in got} == {
        frozenset((f1.id, f2.id)),
        frozenset((f1.id, root.id)),
        frozenset((f2.id, root.id)),
    }
    for e in got:
        assert e.weight == 0.2 and e.provenance.value == "synthetic" and e.scope_key == home.key
        assert set(e.source_episodic_ids) == {recent[0].id, recent[1].id}
    capped = await make(synthetic_recent_episodes=3, synthetic_max_pairs=1).run(home, only=[Phase.SYNTHETIC_LINKS])
    assert capped.phase(Phase.SYNTHETIC_LINKS).counts == {"pairs": 1, "edges": 0}  # type: ignore[union-attr]


async def test_procedural_promotion_writes_draft_skills_only(store: GraphStore, tenant: Scope, make: Make) -> None:
    home = tenant.child("user", "u")
    at = NOW - 5 * DAY
    await store.add_node(
        tenant,
        mem(
            Layer.PROCEDURAL,
            "authored:Backup database",
            at=at,
            properties={"status": "approved", "active": True, "authored": True},
        ),
    )
    await store.add_nodes(
        home,
        [
            event("Deploy: release #12", at=at),
            event("deploy release 13", at=at + 1),
            event("Deploy release (14)", at=at + 2),
            event("rotate keys", at=at),
            event("rotate keys", at=at + 1),
            event("backup database", at=at),
            event("Backup-database", at=at + 1),
            event("backup database!", at=at + 2),
            event("hello there", at=at, kind="turn"),
            event("hello there", at=at + 1, kind="turn"),
            event("hello there", at=at + 2, kind="turn"),
            event("old habit", at=NOW - 40 * DAY),
            event("old habit", at=NOW - 41 * DAY),
            event("old habit", at=at),
        ],
    )
    report = await make().run(home, only=[Phase.PROCEDURAL_PROMOTION])
    assert report.phase(Phase.PROCEDURAL_PROMOTION).counts == {  # type: ignore[union-attr]
        "candidates": 1,
        "drafts": 1,
        "evidence_edges": 3,
        "merged": 0,
        "covered": 0,
    }
    skills = await store.query_subtree(home, {"layers": ["procedural"]}, limit=None)
    assert [s.label for s in skills] == ["deploy release"]
    draft = skills[0]
    assert draft.properties["status"] == "draft" and draft.properties["active"] is False
    assert draft.properties["occurrences"] == 3 and len(draft.properties["steps"]) == 3  # type: ignore[arg-type]
    derived = [e for e in await edges_of(store, home, Relationship.DERIVED_FROM) if e.source == draft.id]
    assert len(derived) == 3
    again = await make().run(home, only=[Phase.PROCEDURAL_PROMOTION])
    assert again.phase(Phase.PROCEDURAL_PROMOTION).counts["drafts"] == 0  # type: ignore[union-attr]
    many = [event(f"chore {name}", at=at + i) for name in "abcdefg" for i in range(3)]
    await store.add_nodes(home, many)
    capped = await make().run(home, only=[Phase.PROCEDURAL_PROMOTION])
    assert capped.phase(Phase.PROCEDURAL_PROMOTION).counts["drafts"] == 5  # type: ignore[union-attr]
    all_skills = await store.query_subtree(home, {"layers": ["procedural"]}, limit=None)
    assert all(s.properties["status"] == "draft" and s.properties["active"] is False for s in all_skills)


class Judge:
    def __init__(self, verdict: bool) -> None:
        self.verdict = verdict
        self.seen: list[tuple[str, str]] = []

    async def same_fact(self, a: str, b: str) -> bool:
        self.seen.append((a, b))
        return self.verdict


async def test_semantic_merge_retracts_the_absorbed_and_moves_its_edges(
    store: GraphStore, tenant: Scope, make: Make
) -> None:
    rng = random.Random(tenant.id)
    base, other, soul_vec = unit_vector(rng), unit_vector(rng), unit_vector(rng)
    keep, dup, far = await store.add_nodes(
        tenant,
        [
            fact("likes coffee", importance=6.0, embedding=base),
            fact("likes coffee a lot", importance=5.0, embedding=near(base, rng, 0.05)),
            fact("owns a bicycle", embedding=other),
        ],
    )
    await store.add_nodes(tenant, [fact("SOUL:x", embedding=soul_vec), fact("SOUL:y", embedding=near(soul_vec, rng))])
    episode = await store.add_node(tenant, event("talk", at=NOW - DAY))
    await store.upsert_edges(
        tenant,
        [
            edge(episode, dup, Relationship.MENTIONS),
            edge(dup, far, Relationship.RELATES_TO),
            edge(dup, keep, Relationship.RELATES_TO),
        ],
    )
    judge = Judge(False)
    apart = await make(model=judge).run(tenant, only=[Phase.SEMANTIC_MERGE])
    assert apart.phase(Phase.SEMANTIC_MERGE).counts == {  # type: ignore[union-attr]
        "probed": 3,
        "candidates": 1,
        "merged": 0,
        "repointed": 0,
        "judged_apart": 1,
    }
    assert len(judge.seen) == 1
    report = await make().run(tenant, only=[Phase.SEMANTIC_MERGE])
    assert report.phase(Phase.SEMANTIC_MERGE).counts == {  # type: ignore[union-attr]
        "probed": 0,
        "candidates": 0,
        "merged": 0,
        "repointed": 0,
    }
    # the judge's "no" advanced the watermark; a fact written later probes again
    late = await store.add_node(tenant, fact("likes coffee!", at=NOW, embedding=near(base, rng, 0.05)))
    report = await make().run(tenant, only=[Phase.SEMANTIC_MERGE])
    counts = report.phase(Phase.SEMANTIC_MERGE).counts  # type: ignore[union-attr]
    assert counts["probed"] == 1 and counts["merged"] == 1
    absorbed = await store.get_node(tenant, late.id)
    assert absorbed is not None and absorbed.retracted and absorbed.retracted_at == NOW
    retraction = absorbed.retraction or {}
    assert retraction["phase"] == "semantic_merge" and retraction["rule"] == "cosine>=0.90"
    assert retraction["merged_into"] in (keep.id, dup.id) and float(retraction["cosine"]) >= 0.9  # type: ignore[arg-type]


async def test_semantic_merge_repoints_edges_to_the_survivor(store: GraphStore, tenant: Scope, make: Make) -> None:
    rng = random.Random(tenant.id + "r")
    base = unit_vector(rng)
    keep, dup, far = await store.add_nodes(
        tenant,
        [
            fact("likes tea", importance=6.0, embedding=base),
            fact("likes tea a lot", importance=7.0, embedding=near(base, rng, 0.05)),
            fact("owns a kettle", embedding=unit_vector(rng)),
        ],
    )
    episode = await store.add_node(tenant, event("talk", at=NOW - DAY))
    await store.upsert_edges(
        tenant,
        [
            edge(episode, keep, Relationship.MENTIONS),
            edge(keep, far, Relationship.RELATES_TO),
            edge(keep, dup, Relationship.RELATES_TO),
            edge(episode, dup, Relationship.MENTIONS),
        ],
    )
    report = await make().run(tenant, only=[Phase.SEMANTIC_MERGE])
    assert report.phase(Phase.SEMANTIC_MERGE).counts == {  # type: ignore[union-attr]
        "probed": 3,
        "candidates": 1,
        "merged": 1,
        "repointed": 2,
    }
    survivor, absorbed = await store.get_node(tenant, dup.id), await store.get_node(tenant, keep.id)
    assert survivor is not None and absorbed is not None
    assert not survivor.retracted and survivor.importance == 7.0
    assert absorbed.retracted and (absorbed.retraction or {})["merged_into"] == dup.id
    mentions = [e for e in await edges_of(store, tenant, Relationship.MENTIONS) if e.source == episode.id]
    assert [(e.target, e.weight) for e in mentions] == [(dup.id, 2.0)]
    relates = {(e.source, e.target) for e in await edges_of(store, tenant, Relationship.RELATES_TO)}
    assert (dup.id, far.id) in relates and (keep.id, far.id) not in relates
    entry = await make(now=NOW + DAY).restore(tenant, keep.id, "carol")
    assert entry.detail["retraction"]["merged_into"] == dup.id  # type: ignore[index, call-overload]
    again = await make(now=NOW + DAY).run(tenant, only=[Phase.SEMANTIC_MERGE])
    assert again.phase(Phase.SEMANTIC_MERGE).counts["merged"] == 0  # type: ignore[union-attr]
    assert json.loads(json.dumps(entry.detail))["memory_scope"] == tenant.key


async def test_semantic_merge_sees_through_a_crowded_index(store: GraphStore, tenant: Scope, make: Make) -> None:
    rng = random.Random(tenant.id + "crowd")
    base = unit_vector(rng)
    home, others = tenant.child("user", "u"), tenant.child("user", "v")
    await store.add_nodes(others, [fact(f"copy {i}", embedding=near(base, rng, 0.01)) for i in range(6)])
    keep, dup = await store.add_nodes(
        home, [fact("mine", importance=6.0, embedding=base), fact("my twin", embedding=near(base, rng, 0.05))]
    )
    report = await make(merge_candidates_k=3).run(home, only=[Phase.SEMANTIC_MERGE])
    assert report.phase(Phase.SEMANTIC_MERGE).counts["merged"] == 1  # type: ignore[union-attr]
    twin = await store.get_node(home, dup.id)
    assert twin is not None and twin.retracted and (twin.retraction or {})["merged_into"] == keep.id
    # read the siblings with retracted ones included: a check through a query that hides
    # retracted memories could never see a sibling the merge wrongly retracted
    siblings = await store.query_subtree(others, {"include_retracted": True}, limit=None)
    assert len(siblings) == 6 and not any(n.retracted for n in siblings)
