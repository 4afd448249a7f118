"""The one-statement recall answers exactly as the stage-by-stage oracle (its executable
specification, spreading in Python: tests/support/recall_oracle.py), item by item: ids, order,
scores and every score part, channels, paths, the activation log and the pending links — over a
random graph of weighted edges, sessions, keyword / name / person cues, retracted and
superseded memories and two scope levels, for every spreading setting that changes a code path.
The statement's fragments run one by one are the engine's degrade path: when the statement
fails, they answer the same, and the result says so."""

from __future__ import annotations

import itertools
import random

import pytest

from hippograph.cues import cues_of
from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import StoreError
from hippograph.layers.repository import LayerRepository
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.retrieval import repository
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.engine import RecallEngine
from hippograph.retrieval.repository import ASSOCIATION_LIMIT, RecallRow
from hippograph.retrieval.types import Channel, RecallResult
from hippograph.scope import Scope
from hippograph.store import GraphStore
from hippograph.store.catalog import RenderedQuery, Statement, TransactionKind
from tests.support.recall_oracle import StagedRecallEngine

NOW = 1_760_000_000.0
WORDS = "garden piano harbor lantern violet meadow copper falcon river orchard tunnel basket".split()
PEOPLE = ["Ann", "Bob", "Cleo"]


RAW_BM25_DRIFT = 0.05
"""Lucene's statistics (document count and frequencies over the whole index, deleted documents
until a merge lands) can move between the two paths' fulltext queries when any transaction
commits in between: the raw BM25 shown in the parts scales (seen under load: 1.502 vs 1.528); the
fused score, z-scored over the pool, stays exact and is compared at 1e-9."""


def _same(a: RecallResult, b: RecallResult) -> None:
    assert [i.node.id for i in a.items] == [i.node.id for i in b.items]
    for x, y in zip(a.items, b.items, strict=True):
        assert x.score == pytest.approx(y.score, abs=1e-9)
        assert x.channels == y.channels and x.path == y.path and x.scope_distance == y.scope_distance
        px, py = x.parts.model_dump(), y.parts.model_dump()
        for field, value in px.items():
            assert (value is None) == (py[field] is None), field
            if isinstance(value, str):  # the key a channel found it through
                assert value == py[field], field
            elif value is not None:
                assert value == pytest.approx(py[field], abs=1e-9, rel=RAW_BM25_DRIFT if field == "bm25" else 0), field
    la, lb = a.activation, b.activation
    assert (la.seeds, la.capped) == (lb.seeds, lb.capped)
    # The statement computes the evidence in Cypher, the staged path in Python: activations
    # agree to 1e-9, so the log (ordered and cut by activation) may swap near-ties only.
    logged_a, logged_b = {n.id: n for n in la.activated}, {n.id: n for n in lb.activated}
    assert len(logged_a) == len(logged_b)
    for i in logged_a.keys() & logged_b.keys():
        assert (logged_a[i].hop, logged_a[i].path) == (logged_b[i].hop, logged_b[i].path)
        assert logged_a[i].activation == pytest.approx(logged_b[i].activation, abs=1e-9)
    edge = min((n.activation for n in la.activated), default=0.0)
    for n in [logged_a[i] for i in logged_a.keys() ^ logged_b.keys() if i in logged_a] + [
        logged_b[i] for i in logged_a.keys() ^ logged_b.keys() if i in logged_b
    ]:
        assert n.activation == pytest.approx(edge, abs=1e-9)  # only at the cut, on a tie
    pend_a, pend_b = {(p.source, p.target) for p in la.pending}, {(p.source, p.target) for p in lb.pending}
    cut = min((p.score for p in la.pending), default=0.0)
    assert all(
        p.score == pytest.approx(cut, abs=1e-9)
        for p in [*la.pending, *lb.pending]
        if (p.source, p.target) in pend_a ^ pend_b
    )


@pytest.fixture
async def world(store: GraphStore, tenant: Scope) -> tuple[Scope, Scope]:
    """120 memories under a user's conversation and 30 under the user, in sessions of 6, with
    cues, NEXT chains, 200 random RELATES_TO edges (weights 0–1.5, some missing), 10
    retracted memories and 7 superseded versions."""
    rng = random.Random(11)
    embedder = HashingEmbeddings()
    user = tenant.child("user", "u")
    leaf = user.child("conversation", "c")
    placed: list[tuple[Scope, MemoryNode]] = []
    for scope, count in ((leaf, 120), (user, 30)):
        nodes = []
        for i in range(count):
            text = " ".join(rng.choice(WORDS) for _ in range(5)) + f" {rng.choice(PEOPLE)} note {i}"
            nodes.append(
                MemoryNode(
                    layer=Layer.SEMANTIC if i % 7 == 0 else Layer.EPISODIC,
                    content=text,
                    embedding=await embedder.embed(text),
                    session_id=f"{scope.id}-s{i // 6}",
                    properties={"speaker": rng.choice(PEOPLE)},
                )
            )
        await store.add_nodes(scope, nodes, cues={n.id: cues_of(n) for n in nodes})
        placed.extend((scope, n) for n in nodes)
        chain = [
            MemoryEdge(source=a.id, target=b.id, relationship=Relationship.NEXT)
            for a, b in itertools.pairwise(nodes)
            if a.session_id == b.session_id
        ]
        await store.upsert_edges(scope, chain, increment=0.0)
    leaf_nodes = [n for s, n in placed if s == leaf]
    for _ in range(200):
        a, b = rng.sample(leaf_nodes, 2)
        edge = MemoryEdge(source=a.id, target=b.id, relationship=Relationship.RELATES_TO, weight=rng.uniform(0, 1.5))
        await store.upsert_edges(leaf, [edge], increment=0.0)
    picked = rng.sample(leaf_nodes, 18)
    for n in picked[:10]:
        await store.update_node(leaf, n.id, {"retracted": True})
    for old, new in itertools.pairwise(picked[10:]):  # history: spreads, never ranks
        await store.update_node(leaf, old.id, {"superseded_by": new.id})
    for scope in (leaf, user):  # keys of a third of the memories (some retracted): both key channels
        turns = []
        for n in rng.sample([n for s, n in placed if s == scope], 50 if scope == leaf else 10):
            keys = []
            for j in range(rng.randint(1, 3)):
                text = " ".join(rng.choice(WORDS) for _ in range(2)) + f" key {j}"
                keys.append(
                    {"id": f"k{n.id}{j}", "kind": "keyphrase", "text": text, "embedding": await embedder.embed(text)}
                )
            turns.append({"memory_id": n.id, "keys": keys})
        await LayerRepository(store).upsert_keys(scope, enricher="test", turns=turns, now=NOW)
    return user, leaf


CONFIGS = {
    "default": RecallConfig(track_access=False),
    "hops 4, wide fan-out": RecallConfig(
        track_access=False, activation=ActivationConfig(max_hops=4, fan_out=8, threshold=0.001)
    ),
    "node cap": RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2, max_nodes=3)),
    "no spreading": RecallConfig(track_access=False, activation=ActivationConfig(max_nodes=0)),
    "edges only": RecallConfig(
        track_access=False, activation=ActivationConfig(max_hops=1, session_decay=0.0, cue_decay=0.0)
    ),
    "cue budget: the strongest cue only": RecallConfig(track_access=False, activation=ActivationConfig(cue_budget=1)),
    "cue budget: a few cues": RecallConfig(track_access=False, activation=ActivationConfig(cue_budget=150)),
    "few candidates, top 20": RecallConfig(track_access=False, candidates_per_channel=7, top_k=20),
    "session prior": RecallConfig(track_access=False, session_prior=0.5),
    "session prior, no spreading": RecallConfig(
        track_access=False, session_prior=0.2, activation=ActivationConfig(max_nodes=0)
    ),
    "inverse cue rarity": RecallConfig(track_access=False, activation=ActivationConfig(cue_rarity="inverse")),
    "person-centred (topic)": RecallConfig(track_access=False, topic_weight=1.0, topic_head_weight=0.5),
    "relevance only": RecallConfig(
        track_access=False, top_k=30, weights={"relevance": 1.0, "recency": 0.0, "frequency": 0.0, "proximity": 0.0}
    ),
}
QUERIES = [
    "garden piano",
    "What did Ann say about the violet lantern?",
    "copper falcon river orchard tunnel",
    "zzz nothing matches this",
    "Bob and Cleo at the harbor",
    "What gardens does Cleo have?",
]


@pytest.mark.parametrize("name", list(CONFIGS))
async def test_one_statement_recall_equals_the_staged_one(
    store: GraphStore, world: tuple[Scope, Scope], name: str
) -> None:
    user, leaf = world
    cfg = CONFIGS[name]
    one, staged = RecallEngine(store, HashingEmbeddings(), cfg), StagedRecallEngine(store, HashingEmbeddings(), cfg)
    through_keys = 0
    for scope in (leaf, user):
        for query in QUERIES:
            for layers in (None, [Layer.SEMANTIC]):
                a = await staged.recall(scope, query, layers=layers, now=NOW)
                b = await one.recall(scope, query, layers=layers, now=NOW)
                _same(a, b)
                through_keys += sum(1 for i in b.items if i.parts.key)
    assert through_keys  # the key channels took part


async def test_the_index_path_equals_the_staged_one(store: GraphStore, world: tuple[Scope, Scope]) -> None:
    """With the exact-scan threshold at 0 both engines ask the vector index (then widen, then
    fall back to the exact scan): still the same answers."""
    if not store.conn.capabilities.supports_search_clause:
        pytest.skip(
            "Neo4j 2026.x only: on 5.26 the two paths ask the unfiltered index for global top-k's of "
            "different sizes, whose approximations may differ; the exact paths are compared above"
        )
    _, leaf = world
    cfg = RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2))
    one, staged = RecallEngine(store, HashingEmbeddings(), cfg), StagedRecallEngine(store, HashingEmbeddings(), cfg)
    one.exact_scan_below = staged.exact_scan_below = 0
    for query in QUERIES:
        _same(await staged.recall(leaf, query, now=NOW), await one.recall(leaf, query, now=NOW))


async def test_a_failing_statement_falls_back_to_the_stages_and_says_so(
    store: GraphStore, world: tuple[Scope, Scope], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, leaf = world
    cfg = CONFIGS["default"]
    one, staged = RecallEngine(store, HashingEmbeddings(), cfg), StagedRecallEngine(store, HashingEmbeddings(), cfg)

    async def out_of_memory(**_: object) -> None:
        raise StoreError("the transaction memory pool is full", retryable=False)

    monkeypatch.setattr(one.repo, "search_recall", out_of_memory)
    for query in QUERIES:
        fell_back, spec = await one.recall(leaf, query, now=NOW), await staged.recall(leaf, query, now=NOW)
        _same(spec, fell_back)
        assert [(d.part, d.error_type) for d in fell_back.degraded] == [("recall_statement", "StoreError")]
        assert spec.degraded == []


async def test_a_statement_the_server_rejects_falls_back_to_its_fragments(
    store: GraphStore, world: tuple[Scope, Scope], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The server refuses the rendered statement (here: one it cannot parse): its fragments,
    run one by one, give the same answer, with a warning and the degradation named."""
    _, leaf = world
    cfg = CONFIGS["default"]
    one, staged = RecallEngine(store, HashingEmbeddings(), cfg), StagedRecallEngine(store, HashingEmbeddings(), cfg)

    def broken(*, lts: bool) -> RenderedQuery:
        return RenderedQuery(
            "retrieval/recall@broken", "CYPHER 25 MATCH (m:Memory) RETURN m.id AS", TransactionKind.READ
        )

    monkeypatch.setattr(repository, "recall_statement", broken)
    for query in QUERIES[:3]:
        fell_back, spec = await one.recall(leaf, query, now=NOW), await staged.recall(leaf, query, now=NOW)
        _same(spec, fell_back)
        assert [d.part for d in fell_back.degraded] == ["recall_statement"]
    assert any("running its fragments one by one" in r.getMessage() for r in caplog.records)


async def test_a_failing_statement_and_a_failing_fragment_degrade_both(
    store: GraphStore, world: tuple[Scope, Scope], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statement fails and then a hop of spreading fails among its fragments: the rest of
    spreading is left out (a part fails as a whole), the direct hits answer."""
    _, leaf = world
    engine = RecallEngine(store, HashingEmbeddings(), CONFIGS["default"])

    async def boom(*_: object, **__: object) -> None:
        raise StoreError("injected failure", retryable=True)

    read_plain = store.conn.read_plain

    async def hop_fails(query: Statement, **params: object) -> list[dict[str, object]]:
        if "/hop@1" in query.path:
            raise StoreError("injected failure", retryable=True)
        return await read_plain(query, **params)

    monkeypatch.setattr(engine.repo, "search_recall", boom)
    monkeypatch.setattr(store.conn, "read_plain", hop_fails)
    result = await engine.recall(leaf, "garden piano", now=NOW)
    assert [d.part for d in result.degraded] == ["recall_statement", "activation"]
    assert result.items and all(Channel.ACTIVATION not in i.channels for i in result.items)
    assert result.activation.activated == []


async def test_both_channels_failing_among_the_fragments_is_an_error(
    store: GraphStore, world: tuple[Scope, Scope], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, leaf = world
    engine = RecallEngine(store, HashingEmbeddings(), CONFIGS["default"])

    async def boom(*_: object, **__: object) -> None:
        raise StoreError("injected failure", retryable=True)

    read_plain = store.conn.read_plain

    async def channels_fail(query: Statement, **params: object) -> list[dict[str, object]]:
        if any(f"/{name}@" in query.path for name in ("vector", "vector_exact", "fulltext")):
            raise StoreError("injected failure", retryable=True)
        return await read_plain(query, **params)

    monkeypatch.setattr(engine.repo, "search_recall", boom)
    monkeypatch.setattr(store.conn, "read_plain", channels_fail)
    with pytest.raises(StoreError, match="recall failed"):
        await engine.recall(leaf, "garden piano", now=NOW)


async def test_the_stages_keep_the_statements_association_cut_with_its_ties(store: GraphStore, tenant: Scope) -> None:
    """More arrivals than ``ASSOCIATION_LIMIT``, the cut inside a tie (a session's members all
    get the same share): the stages keep the same arrivals as the statement, so the same items."""
    rng = random.Random(5)
    embedder = HashingEmbeddings()
    leaf = tenant.child("user", "u").child("conversation", "big")
    nodes = []
    for i in range(1200):  # 12 sessions of 100
        text = " ".join(rng.choice(WORDS) for _ in range(4)) + f" {rng.choice(PEOPLE)} entry {i}"
        nodes.append(
            MemoryNode(
                layer=Layer.EPISODIC, content=text, embedding=await embedder.embed(text), session_id=f"big-s{i // 100}"
            )
        )
    await store.add_nodes(leaf, nodes, cues={n.id: cues_of(n) for n in nodes})
    cfg = RecallConfig(track_access=False, top_k=20)
    one, staged = RecallEngine(store, HashingEmbeddings(), cfg), StagedRecallEngine(store, HashingEmbeddings(), cfg)
    arrivals: list[int] = []
    search = one.repo.search_recall

    async def spy(**params: object) -> RecallRow:
        row = await search(**params)  # type: ignore[arg-type]
        arrivals.append(row.arrivals)
        return row

    one.repo.search_recall = spy  # type: ignore[method-assign]
    for query in ("garden piano harbor", "What did Ann say about the copper falcon?", "entry 7 lantern"):
        _same(await staged.recall(leaf, query, now=NOW), await one.recall(leaf, query, now=NOW))
    assert max(arrivals) > ASSOCIATION_LIMIT  # the cut was reached and kept its ties


@pytest.mark.parametrize("name", ["default", "person-centred (topic)"])
async def test_the_statement_returns_only_the_arrivals_the_result_reads(
    store: GraphStore, world: tuple[Scope, Scope], name: str
) -> None:
    """The statement sends back the edge and association arrivals of the memories that may
    rank, of the activation log and of the pending links, not every arrival (the answers stay
    the stages', above); all of them when person-centred evidence re-ranks after it."""
    _, leaf = world
    cfg = CONFIGS[name]
    one = RecallEngine(store, HashingEmbeddings(), cfg)
    rows: list[RecallRow] = []
    search = one.repo.search_recall

    async def spy(**params: object) -> RecallRow:
        rows.append(row := await search(**params))  # type: ignore[arg-type]
        return row

    one.repo.search_recall = spy  # type: ignore[method-assign]
    for query in QUERIES:
        await one.recall(leaf, query, now=NOW)
    returned, spread = sum(len(r.associations) for r in rows), sum(r.arrivals for r in rows)
    assert spread > 0
    if name == "default":
        assert returned < spread  # here about two thirds (150 memories); on LoCoMo turns a quarter
    else:
        assert returned == spread


async def test_the_padded_parameters_answer_as_the_stages(store: GraphStore, world: tuple[Scope, Scope]) -> None:
    """The statement's parameters go with one type and size bucket (the plan cache keys on
    both: '' pads the lists, spaces the fulltext query, a directionless query goes as the zero
    vector with ``directed`` false): a query with no direction and no term, the longest fulltext
    query ``build_query`` makes (48 terms, past the padding), one name, three names, one layer
    and all of them, in a scope two levels deeper — still the stages' answers."""
    _, leaf = world
    deep = leaf.child("topic", "t").child("thread", "x")  # sees the leaf's and the user's memories
    cfg = RecallConfig(track_access=False, activation=ActivationConfig(max_hops=2))
    one, staged = RecallEngine(store, HashingEmbeddings(), cfg), StagedRecallEngine(store, HashingEmbeddings(), cfg)
    long_query = " ".join(f"{w}{i}" for i, w in enumerate(WORDS * 5)) + " garden piano"
    queries = ["?!", long_query, "Ann and the violet lantern", "Ann, Bob and Cleo by the river"]
    for scope in (deep, leaf):
        for query in queries:
            for layers in (None, [Layer.EPISODIC], [la for la in Layer if la is not Layer.PROSPECTIVE]):
                a = await staged.recall(scope, query, layers=layers, now=NOW)
                b = await one.recall(scope, query, layers=layers, now=NOW)
                assert b.degraded == []  # the statement answered, not the stages
                _same(a, b)
    assert (await one.recall(leaf, long_query, now=NOW)).items  # the padded long query still finds
