"""The recall engine's maths as pure functions: evidence, spreading steps, totals, scores."""

from __future__ import annotations

import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.activation import (
    Arrival,
    activated_log,
    add_up,
    association_arrivals,
    pending_links,
    session_prior,
    session_representatives,
    strongest,
)
from hippograph.retrieval.config import ActivationConfig, RecallConfig
from hippograph.retrieval.recall_state import POPULATION_TTL, Populations
from hippograph.retrieval.repository import ActivationStepRow, AssociationRow, CandidateRow
from hippograph.retrieval.scoring import (
    channels_of,
    evidence_activation,
    final_score,
    signals,
    weak_vector_only,
)
from hippograph.retrieval.types import ActivatedNode, Channel, PathStep, ScoreParts
from hippograph.store.scores import cosine_from_index, index_from_cosine
from tests.support.recall_oracle import Spread, admit, seed_frontier, step_arrivals

pytestmark = pytest.mark.unit


def test_scores_convert_both_ways() -> None:
    assert cosine_from_index(1.0) == 1.0 and cosine_from_index(0.5) == 0.0 and cosine_from_index(0.0) == -1.0
    assert index_from_cosine(0.9) == pytest.approx(0.95)
    assert cosine_from_index(index_from_cosine(0.3)) == pytest.approx(0.3)
    assert CandidateRow(id="a", cosine=0.75).cos == pytest.approx(0.5)
    assert CandidateRow(id="a").cos is None


def test_evidence_is_relative_to_the_weakest_candidate() -> None:
    ev = {"a": ScoreParts(z_vector=2.0), "b": ScoreParts(z_fulltext=1.0), "c": ScoreParts(z_vector=-1.0, person=0.5)}
    base = evidence_activation(ev, vector_weight=1.0, fulltext_weight=1.0)
    assert base == {"a": 1.0, "b": pytest.approx(0.6), "c": 0.0}  # raw 2, 1, -0.5
    assert evidence_activation({"x": ScoreParts(), "y": ScoreParts()}, 1.0, 1.0) == {"x": 1.0, "y": 1.0}
    assert evidence_activation({}, 1.0, 1.0) == {}


def test_one_spreading_step_keeps_the_strongest_arrival_and_never_loops() -> None:
    cfg = ActivationConfig(base_decay=0.5, threshold=0.1)
    frontier = seed_frontier({"s": 1.0, "t": 0.4, "zero": 0.0})
    assert set(frontier) == {"s", "t"}
    rows = [
        ActivationStepRow(source="s", id="x", relationship="NEXT", weight=0.5),
        ActivationStepRow(source="t", id="x", relationship="MENTIONS", weight=None),
        ActivationStepRow(source="s", id="s", relationship="NEXT", weight=1.0),  # back onto its own path
        ActivationStepRow(source="t", id="y", relationship="NEXT", weight=0.1),  # 0.02 < threshold
    ]
    step = step_arrivals(frontier, rows, cfg, hop=1)
    assert set(step) == {"x"}
    assert step["x"].activation == pytest.approx(0.25)  # 1.0·0.5·0.5 > 0.4·0.5·1.0 = 0.2
    assert [p.node_id for p in step["x"].path] == ["s", "x"] and step["x"].path[1].relationship == "NEXT"


def test_admit_caps_new_memories_and_seeds_do_not_spread_again() -> None:
    spread = Spread()
    seeds = {"s": 1.0}
    step = {
        n: ActivatedNode(id=n, activation=a, hop=1, path=[PathStep(node_id="s"), PathStep(node_id=n)])
        for n, a in (("a", 0.9), ("b", 0.8), ("s", 0.7))
    }
    frontier = admit(step, spread, seeds, max_nodes=1)
    assert set(spread.arrived) == {"a", "s"} and spread.added == 1 and spread.capped
    assert set(frontier) == {"a"}  # the seed received but does not spread twice
    weaker = {"a": ActivatedNode(id="a", activation=0.1, hop=2, path=[PathStep(node_id="a")])}
    assert admit(weaker, spread, seeds, max_nodes=1) == {} and spread.arrived["a"].activation == 0.9


def test_association_rows_become_two_hop_paths_through_their_cue() -> None:
    rows = [
        AssociationRow(part="session", id="m", activation=0.3, seed="s", key="sess-1"),
        AssociationRow(part="cue", id="n", activation=0.2, seed="s", key="keyword:harbor"),
    ]
    session, cue = association_arrivals(rows)
    assert [p.node_id for p in session["m"].path] == ["s", "cue:session:sess-1", "m"]
    assert [p.node_id for p in cue["n"].path] == ["s", "cue:keyword:harbor", "n"] and cue["n"].hop == 2


def test_totals_seeds_sessions_log_and_pending() -> None:
    assert add_up({"a": 1.0}, {"a": 0.5, "b": 0.25}, {}) == {"a": 1.5, "b": 0.25}
    assert list(strongest({"a": 0.5, "b": 0.9, "c": 0.5}, 2)) == ["b", "a"]
    reps = session_representatives({"a": 0.9, "b": 0.4, "c": 0.8, "d": 1.0}, {"a": "s1", "b": "s1", "c": "s2"}, 1)
    assert reps == {"a": 0.9}
    paths = {"x": [PathStep(node_id="a"), PathStep(node_id="x")]}
    log = activated_log({"a": 1.2, "x": 0.3}, {"a": 1.0}, paths.get, {"a", "x"}, limit=5)
    assert [(n.id, round(n.activation, 6), n.hop) for n in log] == [("x", 0.3, 1), ("a", 0.2, -1)]
    far = {"x": Arrival("x", 0.2, "a", "keyword:k"), "a": Arrival("a", 0.9, "b", "keyword:k")}
    assert [(p.source, p.target) for p in pending_links(far, {"a": 1.0}, limit=3)] == [("a", "x")]


def test_the_session_prior_gives_each_candidate_its_sessions_best_evidence() -> None:
    base = {"a": 0.9, "b": 0.4, "c": 0.2, "d": 1.0, "e": 0.0}
    session_of = {"a": "s1", "b": "s1", "c": "s2", "d": "", "x": "s2"}  # d: no session; x: not a candidate
    assert session_prior(base, session_of, 0.5) == {"a": 0.45, "b": 0.45, "c": 0.1}
    assert session_prior(base, session_of, 0.0) == {}
    assert session_prior({"e": 0.0}, {"e": "s3"}, 0.5) == {"e": 0.0}


def test_item_scoring() -> None:
    assert channels_of(2, None) == {Channel.VECTOR: 2}
    assert list(channels_of(1, 3)) == [Channel.VECTOR, Channel.FULLTEXT]
    assert weak_vector_only({Channel.VECTOR: 1}, boosted=False, cosine=0.1, min_relevance=0.2)
    assert not weak_vector_only({Channel.VECTOR: 1}, boosted=True, cosine=0.1, min_relevance=0.2)
    assert not weak_vector_only({Channel.VECTOR: 1, Channel.FULLTEXT: 1}, boosted=False, cosine=None, min_relevance=0.2)
    cfg = RecallConfig()
    node = MemoryNode(layer=Layer.SEMANTIC, content="x", label="x", created_at=1000.0, updated_at=1000.0)
    sig = signals(node, cfg, now=1000.0, hops=1, distance=0, window=None)
    assert sig["recency"] == 1.0 and sig["proximity"] == 0.5 and sig["scope_weight"] == 1.0 and sig["currency"] == 1.0
    parts = ScoreParts(relevance=1.0, **sig)
    assert 0.4 <= final_score(cfg, parts) <= 1.0
    assert final_score(cfg, parts.model_copy(update={"currency": 0.5})) == pytest.approx(final_score(cfg, parts) / 2)


def test_an_old_population_still_answers_and_one_caller_recounts_it() -> None:
    now = [0.0]
    populations = Populations(clock=lambda: now[0])
    key = ("org:o", ())
    assert populations.get(key) is None and not populations.due(key)  # never counted: the caller counts
    populations.put(key, 40)
    now[0] = POPULATION_TTL - 1
    assert populations.get(key) == 40 and not populations.due(key)
    now[0] = POPULATION_TTL + 1
    assert populations.due(key)  # the first to find it old recounts ...
    assert not populations.due(key) and populations.get(key) == 40  # ... the rest keep the old count
    populations.put(key, 45)
    assert populations.get(key) == 45 and not populations.due(key)
    now[0] = 2 * POPULATION_TTL + 2
    assert populations.due(key)
