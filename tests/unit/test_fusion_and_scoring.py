"""Channel fusion (z-scores) and the score signals of reference §4 as pure functions."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval import scoring
from hippograph.retrieval.config import RecallConfig, ScoreWeights
from hippograph.retrieval.fusion import zscores
from hippograph.scope import scope_weight

DAY = 86_400.0
NOW = 1_750_000_000.0


def fact(**fields: object) -> MemoryNode:
    data: dict[str, object] = {"created_at": NOW - DAY, "updated_at": NOW - DAY, **fields}
    return MemoryNode(layer=Layer.SEMANTIC, label="f", **data)  # type: ignore[arg-type]


# -- fusion ------------------------------------------------------------------------------------
def test_zscores_have_mean_zero_and_unit_spread() -> None:
    z = zscores({"a": 1.0, "b": 2.0, "c": 3.0, "d": 10.0}, ["a", "b", "c", "d"])
    values = list(z.values())
    assert math.isclose(sum(values), 0.0, abs_tol=1e-9)
    assert math.isclose(sum(v * v for v in values) / len(values), 1.0, rel_tol=1e-9)
    assert z["d"] > z["c"] > z["b"] > z["a"]


def test_zscores_are_invariant_to_positive_affine_rescaling() -> None:
    raw = {"a": 0.91, "b": 0.85, "c": 0.40}
    ids = ["a", "b", "c"]
    rescaled = {k: (1 + v) / 2 for k, v in raw.items()}  # Neo4j's (1 + cos) / 2
    for k, v in zscores(raw, ids).items():
        assert math.isclose(v, zscores(rescaled, ids)[k], rel_tol=1e-9)
        assert math.isclose(v, zscores({i: 37 * x + 5 for i, x in raw.items()}, ids)[k], rel_tol=1e-9)


def test_zscores_count_missing_ids_at_the_missing_value() -> None:
    z = zscores({"a": 4.0}, ["a", "b", "c"], missing=1.0)
    assert z["b"] == z["c"] < 0 < z["a"]


def test_zscores_of_nothing_or_of_equal_values() -> None:
    assert zscores({}, []) == {}
    assert zscores({"a": 2.0, "b": 2.0}, ["a", "b"]) == {"a": 0.0, "b": 0.0}
    assert zscores({"a": 5.0}, ["a"]) == {"a": 0.0}


# -- the four signals --------------------------------------------------------------------------
def test_recency_halves_every_half_life_and_never_exceeds_one() -> None:
    assert math.isclose(scoring.recency(fact(), NOW + 6 * DAY, 7.0), 0.5)
    assert math.isclose(scoring.recency(fact(), NOW + 13 * DAY, 7.0), 0.25)
    assert scoring.recency(fact(updated_at=NOW + DAY), NOW, 7.0) == 1.0  # written "in the future"


def test_recency_of_an_episode_counts_from_when_it_happened() -> None:
    old_event = fact(occurred_at=NOW - 28 * DAY)
    assert math.isclose(scoring.recency(old_event, NOW, 7.0), 1 / 16)


def test_frequency_is_log_scaled_capped_and_counts_spreading_visits_half() -> None:
    assert scoring.frequency(fact(), 100) == 0.0
    assert math.isclose(scoring.frequency(fact(access_count=100), 100), 1.0)
    assert scoring.frequency(fact(access_count=5000), 100) == 1.0
    assert math.isclose(scoring.frequency(fact(access_count=9), 100), math.log(10) / math.log(101))
    assert scoring.frequency(fact(spreading_access_count=2), 100) == scoring.frequency(fact(access_count=1), 100)


@pytest.mark.parametrize(("hops", "expected"), [(None, 0.0), (0, 1.0), (1, 0.5), (3, 0.25)])
def test_proximity_is_one_over_one_plus_path_length(hops: int | None, expected: float) -> None:
    assert scoring.proximity(hops) == expected


def test_currency_prefers_current_facts() -> None:
    assert scoring.currency(fact(), NOW) == 1.0
    assert scoring.currency(fact(valid_until=NOW + DAY), NOW) == 1.0
    assert scoring.currency(fact(valid_until=NOW - 1), NOW) == scoring.SUPERSEDED_FACTOR < 1.0
    assert scoring.currency(fact(superseded_by="newer"), NOW) == scoring.SUPERSEDED_FACTOR


def test_time_match_keeps_memories_of_the_window_and_lowers_the_others() -> None:
    window = (NOW - 2 * DAY, NOW)
    assert scoring.time_match(fact(), None) == 1.0
    assert scoring.time_match(fact(), window) == 1.0  # created a day ago
    assert scoring.time_match(fact(occurred_at=NOW - 10 * DAY), window) == scoring.OUT_OF_WINDOW_FACTOR
    assert scoring.time_match(fact(occurred_at=NOW), window) == scoring.OUT_OF_WINDOW_FACTOR  # end is open


def test_combine_gives_one_for_a_perfect_memory_and_grows_with_every_signal() -> None:
    cfg = RecallConfig()
    assert math.isclose(scoring.combine(cfg, 1.0, 1.0, 1.0, 1.0), 1.0)
    base = (0.5, 0.5, 0.5, 0.5)
    for i in range(4):
        more = list(base)
        more[i] = 0.9
        assert scoring.combine(cfg, *more) > scoring.combine(cfg, *base)
    assert 0.0 <= scoring.combine(cfg, 0.0, 0.0, 0.0, 0.0) <= scoring.combine(cfg, *base) <= 1.0


def test_recency_weighs_only_when_the_query_asks_about_the_recent() -> None:
    cfg = RecallConfig()
    history = scoring.for_query(cfg, "What activities does Melanie do?")
    w = history.weights
    assert (w.relevance, w.recency, w.frequency, w.proximity) == pytest.approx((0.6, 0.0, 0.2, 0.2))
    assert history.top_k == cfg.top_k and history.recency_half_life_days == cfg.recency_half_life_days
    # equally relevant, one fresh and one a year old: only a query about the recent tells them apart
    assert scoring.combine(history, 0.8, 1.0, 0.0, 1.0) == scoring.combine(history, 0.8, 0.0, 0.0, 1.0)
    recent = scoring.for_query(cfg, "What did Melanie do recently?")
    assert recent is cfg
    assert scoring.combine(recent, 0.8, 1.0, 0.0, 1.0) > scoring.combine(recent, 0.8, 0.0, 0.0, 1.0)


def test_recency_in_every_recall_as_the_reference_when_configured() -> None:
    always = RecallConfig(recency_when_asked=False)
    assert scoring.for_query(always, "What activities does Melanie do?") is always
    no_recency = RecallConfig(weights=ScoreWeights(relevance=1.0, recency=0.0, frequency=0.0, proximity=0.0))
    assert scoring.for_query(no_recency, "anything") is no_recency


def test_score_weights_must_sum_to_one() -> None:
    assert ScoreWeights(relevance=0.7, recency=0.1, frequency=0.1, proximity=0.1)
    with pytest.raises(ValidationError):
        ScoreWeights(relevance=0.5, recency=0.5, frequency=0.5, proximity=0.5)
    with pytest.raises(ValidationError):
        ScoreWeights(relevance=1.2, recency=-0.1, frequency=-0.05, proximity=-0.05)


# -- scope-distance weighting (reference §3) -----------------------------------------------------
def test_scope_weight_halves_per_level_above_the_reader() -> None:
    assert [scope_weight(d) for d in range(4)] == [1.0, 0.5, 0.25, 0.125]
    assert scope_weight(1, half_life=2.0) == pytest.approx(2**-0.5)
    assert scope_weight(10, floor=0.2) == pytest.approx(0.2 + 0.8 * 2**-10)
    assert scope_weight(0, floor=0.2) == 1.0
