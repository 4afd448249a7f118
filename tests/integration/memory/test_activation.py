"""Spreading activation on crafted graphs (reference §5): per-hop decay, fan-out, the node cap,
the threshold, paths that start at a seed and follow real edges, visibility; and its
bookkeeping: access_count / spreading_access_count bumps and PendingLink nodes."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode, Relationship
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.types import Channel, RecallResult
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import add, edge, node, run_file
from tests.support.memory_internals import internals

QUERY = "harbor lantern"
NEXT, REL = Relationship.NEXT, Relationship.RELATES_TO


async def seed_pair(store: GraphStore, scope: Scope, hashing: HashingEmbeddings) -> tuple[MemoryNode, MemoryNode]:
    """The seed S (matches the query on both channels) and a weak vector-only candidate W."""
    s = node(Layer.SEMANTIC, QUERY, nid="S", embedding=await hashing.embed(QUERY))
    w = node(Layer.SEMANTIC, "zulu yankee", nid="W", embedding=await hashing.embed("zulu yankee"))
    await add(store, scope, s, w)
    return s, w


def plain(text: str, nid: str) -> MemoryNode:
    """A memory only activation can find: no query word, no embedding."""
    return node(Layer.SEMANTIC, text, nid=nid)


async def recall(memory: Memory, scope: Scope, **activation: object) -> RecallResult:
    cfg = RecallConfig(activation=ActivationConfig(**activation), track_access=False)  # type: ignore[arg-type]
    return await internals(memory).engine.recall(scope, QUERY, top_k=50, config=cfg)


def activations(result: RecallResult) -> dict[str, tuple[float, int]]:
    return {a.id: (round(a.activation, 6), a.hop) for a in result.activation.activated}


async def build_chain(memory: Memory, scope: Scope, hashing: HashingEmbeddings, n: int = 5) -> None:
    await seed_pair(internals(memory).store, scope, hashing)
    await add(internals(memory).store, scope, *(plain(f"chain link {i}", f"A{i}") for i in range(1, n + 1)))
    ids = ["S", *(f"A{i}" for i in range(1, n + 1))]
    await internals(memory).store.upsert_edges(scope, [edge(a, b, NEXT) for a, b in pairwise(ids)])


async def test_activation_halves_per_hop_along_a_chain(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    await build_chain(memory, tenant, hashing)
    result = await recall(memory, tenant, max_hops=3)
    assert result.activation.seeds[0] == "S"
    assert activations(result) == {"A1": (0.5, 1), "A2": (0.25, 2), "A3": (0.125, 3)}
    paths = {a.id: [(p.node_id, p.relationship) for p in a.path] for a in result.activation.activated}
    assert paths["A3"] == [("S", None), ("A1", "NEXT"), ("A2", "NEXT"), ("A3", "NEXT")]
    by_id = {i.node.id: i for i in result.items}
    assert by_id["A2"].channels == {Channel.ACTIVATION: 2} and by_id["A2"].parts.edges == pytest.approx(0.25)
    assert by_id["A2"].parts.proximity == pytest.approx(1 / 3) and [p.node_id for p in by_id["A2"].path] == [
        "S", "A1", "A2",
    ]  # fmt: skip
    assert by_id["S"].score > by_id["A1"].score > by_id["A2"].score > by_id["A3"].score


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, {"A1": (0.5, 1)}),  # max_hops 0: first-degree neighbours only
        ({"max_hops": 1}, {"A1": (0.5, 1)}),  # the reference: N hops (0 and 1 alike)
        ({"max_hops": 2}, {"A1": (0.5, 1), "A2": (0.25, 2)}),
        ({"max_hops": 4, "threshold": 0.2}, {"A1": (0.5, 1), "A2": (0.25, 2)}),
        ({"max_hops": 4, "threshold": 0.125}, {"A1": (0.5, 1), "A2": (0.25, 2), "A3": (0.125, 3)}),
        ({"max_hops": 3, "base_decay": 0.8}, {"A1": (0.8, 1), "A2": (0.64, 2), "A3": (0.512, 3)}),
        ({"max_hops": 4, "max_nodes": 2}, {"A1": (0.5, 1), "A2": (0.25, 2)}),
        ({"max_nodes": 0}, {}),
    ],
)
async def test_hops_threshold_decay_and_node_cap_on_a_chain(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings,
    config: dict[str, float], expected: dict[str, tuple[float, int]],
) -> None:  # fmt: skip
    await build_chain(memory, tenant, hashing)
    result = await recall(memory, tenant, **config)
    assert activations(result) == expected
    assert result.activation.capped == (config.get("max_nodes") == 2)
    assert {i.node.id for i in result.items if Channel.ACTIVATION in i.channels} == set(expected)


async def build_star(memory: Memory, scope: Scope, hashing: HashingEmbeddings) -> None:
    await seed_pair(internals(memory).store, scope, hashing)
    await add(internals(memory).store, scope, *(plain(f"spoke {i}", f"B{i}") for i in range(1, 9)))
    weights = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    await internals(memory).store.upsert_edges(scope, [edge("S", f"B{i}", REL, w) for i, w in enumerate(weights, 1)])


async def test_fan_out_keeps_the_strongest_edges_and_weaker_edges_pass_less(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    await build_star(memory, tenant, hashing)
    result = await recall(memory, tenant, fan_out=3)
    assert activations(result) == {"B1": (0.5, 1), "B2": (0.45, 1), "B3": (0.4, 1)}
    assert all(a.path[-1].relationship == "RELATES_TO" for a in result.activation.activated)
    wide = await recall(memory, tenant, fan_out=8)
    assert activations(wide) == {f"B{i}": (round(0.5 * w, 6), 1) for i, w in
                                 enumerate([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3], 1)}  # fmt: skip


async def test_the_node_cap_keeps_the_strongest_and_says_so(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    await build_star(memory, tenant, hashing)
    result = await recall(memory, tenant, fan_out=8, max_nodes=3)
    assert set(activations(result)) == {"B1", "B2", "B3"} and result.activation.capped
    assert not (await recall(memory, tenant, fan_out=8, max_nodes=8)).activation.capped


async def test_paths_start_at_a_seed_follow_real_edges_and_never_leave_the_visible_scopes(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    user = tenant.child("user", "u")
    await seed_pair(internals(memory).store, user, hashing)
    await add(internals(memory).store, user, *(plain(f"mesh node {i}", f"M{i}") for i in range(1, 7)))
    await add(internals(memory).store, tenant, plain("org policy", "P"))  # an ancestor's memory: visible
    below = user.child("conv", "c")
    await add(internals(memory).store, below, plain("a conversation below", "C"))  # a child's memory: invisible
    sibling = tenant.child("user", "v")
    await add(internals(memory).store, sibling, plain("the sibling's", "V"))
    await internals(memory).store.upsert_edges(user, [
        edge("S", "M1", NEXT), edge("M1", "M2", REL, 0.8), edge("M2", "M3", NEXT), edge("M3", "S", REL),
        edge("M1", "M4", REL), edge("M4", "M5", REL, 0.6), edge("M5", "M6", NEXT), edge("M2", "P", REL),
    ])  # fmt: skip
    await internals(memory).store.upsert_edges(below, [edge("S", "C", REL), edge("C", "M6", REL)])
    await internals(memory).store.upsert_edges(sibling, [edge("P", "V", REL)])
    result = await recall(memory, user, max_hops=4, threshold=0.0)
    reached = set(activations(result))
    assert reached == {"M1", "M2", "M3", "M4", "M5", "M6", "P"}
    assert "C" not in reached and "V" not in reached
    seeds = set(result.activation.seeds)
    for a in result.activation.activated:
        assert a.path[0].node_id in seeds and a.path[0].relationship is None
        assert a.path[-1].node_id == a.id and a.hop == len(a.path) - 1
        assert len({p.node_id for p in a.path}) == len(a.path)  # no loops
        for prev, step in zip(a.path, a.path[1:], strict=False):
            neighbours = await internals(memory).store.get_neighbors(user, prev.node_id, step.relationship)
            assert step.node_id in {n.id for n, _ in neighbours}, (a.id, prev.node_id, step)
    assert activations(result)["M3"] == (
        0.5,
        1,
    )  # reached back from S directly, the strongest arrival kept


async def test_recall_bumps_access_and_spreading_counts(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    await build_chain(memory, tenant, hashing)
    cfg = RecallConfig(activation=ActivationConfig(max_hops=2))
    result = await internals(memory).engine.recall(tenant, QUERY, top_k=2, config=cfg)
    await internals(memory).engine.drain()
    returned = set(result.ids)
    activated = {a.id for a in result.activation.activated}
    assert returned and activated == {"A1", "A2"}
    for nid in ["S", "W", "A1", "A2", "A3"]:
        stored = await internals(memory).store.get_node(tenant, nid)
        assert stored is not None
        assert stored.access_count == (1 if nid in returned else 0), nid
        assert stored.spreading_access_count == (1 if nid in activated else 0), nid
        assert (stored.last_accessed_at is not None) == (nid in returned)
    await internals(memory).engine.recall(tenant, QUERY, top_k=2, config=cfg)
    await internals(memory).engine.drain()
    again = await internals(memory).store.get_node(tenant, "A1")
    assert again is not None and again.spreading_access_count == 2


async def test_track_access_off_changes_nothing(memory: Memory, tenant: Scope, hashing: HashingEmbeddings) -> None:
    await build_chain(memory, tenant, hashing)
    await recall(memory, tenant, max_hops=1)
    await internals(memory).engine.drain()
    for nid in ["S", "A1"]:
        stored = await internals(memory).store.get_node(tenant, nid)
        assert stored is not None and stored.access_count == stored.spreading_access_count == 0


async def test_links_inferred_through_shared_cues_are_left_pending(memory: Memory, tenant: Scope) -> None:
    seed = await memory.remember(tenant, "harbor lantern quokka")
    far = await memory.remember(tenant, "quokka marmalade picnic")
    for word in ("alpha", "bravo", "charlie"):
        await memory.remember(tenant, f"harbor {word}")
    cfg = RecallConfig(candidates_per_channel=2)
    result = await internals(memory).engine.recall(tenant, QUERY, config=cfg)
    await internals(memory).engine.drain()
    pending = {(p.source, p.target): p for p in result.activation.pending}
    assert (seed.id, far.id) in pending and pending[(seed.id, far.id)].score > 0
    far_item = next(a for a in result.activation.activated if a.id == far.id)
    assert [p.node_id for p in far_item.path] == [seed.id, "cue:keyword:quokka", far.id]
    conn = internals(memory).store.conn
    stored = {(r["p"]["source"], r["p"]["target"]): r["p"]
              for r in await run_file(conn, "get_pending_links", scope_key=tenant.key)}  # fmt: skip
    assert set(stored) == set(pending)
    assert stored[(seed.id, far.id)]["score"] == pytest.approx(pending[(seed.id, far.id)].score)
    assert stored[(seed.id, far.id)]["hops"] == 2


async def test_pending_links_are_kept_for_a_scope_that_only_reads(memory: Memory, tenant: Scope) -> None:
    seed = await memory.remember(tenant, "harbor lantern quokka")
    far = await memory.remember(tenant, "quokka marmalade picnic")
    for word in ("alpha", "bravo", "charlie"):
        await memory.remember(tenant, f"harbor {word}")
    reader = tenant.child("user", "reader")
    result = await internals(memory).engine.recall(reader, QUERY, config=RecallConfig(candidates_per_channel=2))
    await internals(memory).engine.drain()
    assert (seed.id, far.id) in {(p.source, p.target) for p in result.activation.pending}
    stored = await run_file(internals(memory).store.conn, "get_pending_links", scope_key=reader.key)
    assert (seed.id, far.id) in {(r["p"]["source"], r["p"]["target"]) for r in stored}


async def test_a_strong_hit_activates_its_session_through_a_real_cue(memory: Memory, tenant: Scope) -> None:
    from hippograph.memory import ConversationTurn
    from hippograph.memory.ingest import turn_node_id

    texts = {
        "s1": ["the harbor lantern was lit at dusk", "we ate grilled sardines", "then walked to the old fort",
               "and slept at the inn"],
        "s2": ["on tuesday we went to the museum", "the tram was crowded", "we bought postcards"],
    }  # fmt: skip
    turns = [ConversationTurn(turn_id=f"{s}:{i}", session_id=s, speaker="Ana", text=t)
             for s, lines in texts.items() for i, t in enumerate(lines)]  # fmt: skip
    await memory.ingest(tenant, turns)
    cfg = RecallConfig(candidates_per_channel=1, track_access=False,
                       activation=ActivationConfig(cue_decay=0.0))  # fmt: skip
    result = await internals(memory).engine.recall(tenant, QUERY, top_k=20, config=cfg)
    hit = turn_node_id(tenant, "s1:0")
    assert result.ids[0] == hit
    by_id = {i.node.id: i for i in result.items}
    for i in (2, 3):
        item = by_id[turn_node_id(tenant, f"s1:{i}")]
        assert item.parts.session > 0 and Channel.ACTIVATION in item.channels
    far = by_id[turn_node_id(tenant, "s1:3")]  # beyond the NEXT edges' reach: only the session cue gets there
    assert [p.node_id for p in far.path] == [hit, "cue:session:s1", far.node.id]
    for i in range(3):
        other = by_id.get(turn_node_id(tenant, f"s2:{i}"))
        assert other is None or other.parts.session == 0.0
    for a in result.activation.activated:
        cue_steps = [p.node_id for p in a.path if p.node_id.startswith("cue:")]
        for step in cue_steps:
            kind, _, key = step.removeprefix("cue:").partition(":")
            members = await run_file(
                internals(memory).store.conn, "get_cue_members", kind=kind, key=key, visible=[tenant.key]
            )
            assert {a.path[0].node_id, a.id} <= set(members[0]["ids"]), (a.id, step)


async def test_a_direct_hit_reached_through_an_edge_too_stays_zero_hops_from_a_seed(
    memory: Memory, tenant: Scope, hashing: HashingEmbeddings
) -> None:
    """Proximity is the distance to the nearest seed; a memory a channel found is a seed, so it
    keeps proximity 1 even when another seed's activation also reached it over an edge."""
    await seed_pair(internals(memory).store, tenant, hashing)
    text = "harbor lantern repair"
    near = node(Layer.SEMANTIC, text, nid="N", embedding=await hashing.embed(text))
    await add(internals(memory).store, tenant, near)
    await internals(memory).store.upsert_edges(tenant, [edge("S", "N", NEXT)])
    result = await recall(memory, tenant)
    by_id = {i.node.id: i for i in result.items}
    assert by_id["N"].parts.edges > 0 and [p.node_id for p in by_id["N"].path] == ["S", "N"]
    assert Channel.ACTIVATION not in by_id["N"].channels
    assert by_id["N"].parts.proximity == 1.0 and by_id["S"].parts.proximity == 1.0


async def test_a_cue_shared_by_many_memories_does_not_flood_the_result(memory: Memory, tenant: Scope) -> None:
    """Cue spreading walks the strongest cues first (the rare ``quokka`` before the common
    ``harbor``) and stops once the walked cues have ``cue_budget`` members: then the common
    cue's 30 members get nothing from it, the rare cue still reaches its memory, and every
    recalled item is still explained by a path that ends at it."""
    seed = await memory.remember(tenant, "harbor lantern quokka")
    far = await memory.remember(tenant, "quokka marmalade picnic")
    common = [await memory.remember(tenant, f"harbor word{i}") for i in range(30)]
    common_ids = {m.id for m in common}

    async def cued(budget: int) -> tuple[RecallResult, dict[str, float]]:
        cfg = RecallConfig(candidates_per_channel=2, track_access=False,
                           activation=ActivationConfig(cue_budget=budget))  # fmt: skip
        result = await internals(memory).engine.recall(tenant, QUERY, top_k=40, config=cfg)
        return result, {i.node.id: i.parts.cues for i in result.items}

    walked_all, cues_all = await cued(2000)
    assert sum(1 for i in common_ids if cues_all.get(i, 0.0) > 0) >= 25
    capped, cues = await cued(2)  # quokka has 2 members: harbor is not walked
    assert cues[far.id] > 0 and cues[far.id] == pytest.approx(cues_all[far.id])
    assert all(cues.get(i, 0.0) == 0.0 for i in common_ids)
    assert not any(p.node_id == "cue:keyword:harbor" for a in capped.activation.activated for p in a.path)
    by_id = {i.node.id: i for i in capped.items}
    assert [p.node_id for p in by_id[far.id].path] == [seed.id, "cue:keyword:quokka", far.id]
    for result in (walked_all, capped):
        for item in result.items:
            assert item.path and item.path[-1].node_id == item.node.id
            assert item.explain()


async def test_inverse_rarity_passes_one_over_the_cues_degree(memory: Memory, tenant: Scope) -> None:
    """``cue_rarity="inverse"`` weighs a cue by 1 / degree (HippoRAG 2's seed weighting)
    instead of ln(1 + N/degree) / ln(1 + N): through ``quokka`` (2 members) the far memory gets
    ½ of what the seed passes, against ln(1 + N/2) / ln(1 + N) by default."""
    seed = await memory.remember(tenant, "harbor lantern quokka")
    far = await memory.remember(tenant, "quokka marmalade picnic")
    for word in ("alpha", "bravo", "charlie"):
        await memory.remember(tenant, f"harbor {word}")

    async def passed(rarity: str) -> float:
        cfg = RecallConfig(candidates_per_channel=2, track_access=False,
                           activation=ActivationConfig(cue_rarity=rarity))  # type: ignore[arg-type]  # fmt: skip
        result = await internals(memory).engine.recall(tenant, QUERY, config=cfg)
        return next(p.score for p in result.activation.pending if (p.source, p.target) == (seed.id, far.id))

    n = await internals(memory).engine.repo.scope_size(
        visible=tenant.ancestor_keys(), layers=[layer.value for layer in Layer]
    )
    log_rarity = math.log(1 + n / 2) / math.log(1 + n)
    assert await passed("inverse") == pytest.approx(await passed("log") * 0.5 / log_rarity)


async def test_the_session_prior_gives_a_candidate_its_sessions_best_evidence(memory: Memory, tenant: Scope) -> None:
    """With ``session_prior`` every candidate gains that share of its session's best candidate
    evidence (spreading off here, so each candidate's relevance without the prior is its
    evidence); without it nothing is added."""
    from hippograph.memory import ConversationTurn

    texts = {
        "s1": ["the harbor lantern was lit at dusk", "we ate grilled sardines", "then walked to the old fort"],
        "s2": ["on tuesday we went to the museum", "a lantern in the window", "we bought postcards"],
    }
    turns = [ConversationTurn(turn_id=f"{s}:{i}", session_id=s, speaker="Ana", text=t)
             for s, lines in texts.items() for i, t in enumerate(lines)]  # fmt: skip
    await memory.ingest(tenant, turns)
    weights = {"relevance": 1.0, "recency": 0.0, "frequency": 0.0, "proximity": 0.0}

    async def recalled(prior: float) -> RecallResult:
        cfg = RecallConfig(track_access=False, min_relevance=0.0, weights=weights, session_prior=prior,
                           activation=ActivationConfig(max_nodes=0))  # type: ignore[arg-type]  # fmt: skip
        return await internals(memory).engine.recall(tenant, QUERY, top_k=20, config=cfg)

    without, with_prior = await recalled(0.0), await recalled(0.5)
    evidence = {i.node.id: i.parts.relevance for i in without.items}  # the best candidate's evidence is 1
    session_of = {i.node.id: i.node.session_id for i in without.items}
    assert len(evidence) == 6 and all(i.parts.session == 0.0 for i in without.items)
    best = {s: max(v for i, v in evidence.items() if session_of[i] == s) for s in set(session_of.values())}
    assert len(set(best.values())) == 2
    for item in with_prior.items:
        assert item.parts.session == pytest.approx(0.5 * best[session_of[item.node.id]])
