"""Length-bucketed batches: every text once, sorted by length within a window, cut under the
text and padded-token bounds; padding and mask per batch."""

from __future__ import annotations

import random

import pytest

from hippograph.embeddings.batching import length_batches, pad_batch


def test_every_index_appears_once_and_batches_respect_both_bounds() -> None:
    rng = random.Random(3)
    lengths = [rng.randint(1, 120) for _ in range(1000)]
    batches = length_batches(lengths, max_batch=32, max_tokens=1024, window=256)
    assert sorted(i for b in batches for i in b) == list(range(1000))
    for b in batches:
        assert len(b) <= 32
        assert len(b) * max(lengths[i] for i in b) <= 1024 or len(b) == 1


def test_short_texts_go_many_to_a_batch_and_long_ones_few() -> None:
    lengths = [10] * 64 + [200] * 8
    batches = length_batches(lengths, max_batch=64, max_tokens=1000, window=100)
    assert [len(b) for b in batches] == [64, 5, 3]
    assert all(len({lengths[i] for i in b}) == 1 for b in batches)  # no short text padded to 200


def test_a_batch_costs_about_what_its_tokens_cost() -> None:
    rng = random.Random(5)
    lengths = [rng.choice([8, 12, 20, 35, 60, 150]) for _ in range(512)]
    batches = length_batches(lengths, max_batch=64, max_tokens=4096, window=512)
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    in_order = sum(64 * max(lengths[s : s + 64]) for s in range(0, 512, 64))  # cut in the order given
    assert padded <= 1.2 * sum(lengths) < in_order


def test_sorting_stays_within_its_window() -> None:
    lengths = [50, 40, 30, 20, 10, 5, 4, 3, 2, 1]
    batches = length_batches(lengths, max_batch=100, max_tokens=10_000, window=5)
    assert batches == [[4, 3, 2, 1, 0], [9, 8, 7, 6, 5]]


def test_a_text_over_the_token_budget_goes_alone() -> None:
    assert length_batches([5, 500, 5], max_batch=8, max_tokens=100, window=8) == [[0, 2], [1]]
    assert length_batches([], max_batch=8, max_tokens=100) == []


@pytest.mark.parametrize("bound", ["max_batch", "max_tokens", "window"])
def test_bounds_below_one_are_refused(bound: str) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        length_batches([1, 2], **{bound: 0})


def test_pad_batch_pads_to_the_longest_with_a_mask() -> None:
    tokens, mask = pad_batch([[101, 7, 102], [101, 102]], pad_id=0)
    assert tokens.tolist() == [[101, 7, 102], [101, 102, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 1, 0]]
    assert str(tokens.dtype) == "int64" and str(mask.dtype) == "int64"
