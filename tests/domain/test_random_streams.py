"""Named random streams: determinism, independence, exact weighting."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.random_streams import (
    draw_choice,
    draw_uniform,
    draw_weighted,
    exact_weight,
    shuffle,
    stream,
    stream_seed,
)

LABELS = st.text(min_size=1, max_size=30)
SEEDS = st.integers(min_value=-(2**63), max_value=2**63)


def test_stream_seed_is_the_sha256_of_seed_and_label() -> None:
    expected = int.from_bytes(hashlib.sha256(b"42:phase1/alice/round3/class").digest(), "big")
    assert stream_seed(42, "phase1/alice/round3/class") == expected


def test_draws_are_pinned() -> None:
    # Pinned values: a change here means recorded runs no longer replay.
    assert stream(42, "phase1/alice/round3/class").random() == 0.6035698083992119
    assert shuffle(7, "phase2/round1/order", ["alice", "bob", "carol", "dave"]) == [
        "alice",
        "dave",
        "carol",
        "bob",
    ]
    assert draw_uniform(1, "phase1/alice/round2/multiplier", 0.5, 2.0) == 1.5148308131290351


def test_draws_are_the_same_in_a_fresh_process_with_another_hash_seed() -> None:
    code = (
        "from maai.domain.random_streams import stream;"
        "print(repr(stream(42, 'phase1/alice/round3/class').random()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
        cwd=Path(__file__).resolve().parents[2],
    ).stdout.strip()
    assert out == repr(stream(42, "phase1/alice/round3/class").random())


@settings(max_examples=50)
@given(seed=SEEDS, label=LABELS)
def test_same_seed_and_label_give_the_same_sequence(seed: int, label: str) -> None:
    a, b = stream(seed, label), stream(seed, label)
    assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]


@settings(max_examples=50)
@given(seed=SEEDS, labels=st.lists(LABELS, min_size=2, max_size=2, unique=True))
def test_different_labels_give_different_sequences(seed: int, labels: list[str]) -> None:
    a, b = (stream(seed, label) for label in labels)
    assert [a.random() for _ in range(4)] != [b.random() for _ in range(4)]


@settings(max_examples=30)
@given(seeds=st.lists(SEEDS, min_size=2, max_size=2, unique=True), label=LABELS)
def test_different_seeds_give_different_sequences(seeds: list[int], label: str) -> None:
    a, b = (stream(seed, label) for seed in seeds)
    assert [a.random() for _ in range(4)] != [b.random() for _ in range(4)]


def test_a_draw_does_not_depend_on_other_draws_before_it() -> None:
    first = draw_uniform(3, "x", 0, 1)
    for i in range(10):
        draw_uniform(3, f"other/{i}", 0, 1)
    assert draw_uniform(3, "x", 0, 1) == first


@settings(max_examples=50)
@given(seed=SEEDS, label=LABELS, low=st.floats(0.01, 10), width=st.floats(0, 10))
def test_uniform_stays_in_bounds(seed: int, label: str, low: float, width: float) -> None:
    high = low + width
    assert low <= draw_uniform(seed, label, low, high) <= high


def test_uniform_rejects_reversed_bounds() -> None:
    with pytest.raises(ValueError):
        draw_uniform(0, "x", 2.0, 1.0)


@settings(max_examples=50)
@given(
    seed=SEEDS,
    label=LABELS,
    weights=st.lists(st.integers(0, 5), min_size=1, max_size=6).filter(any),
)
def test_weighted_never_draws_a_zero_weight(seed: int, label: str, weights: list[int]) -> None:
    index = draw_weighted(seed, label, list(range(len(weights))), weights)
    assert weights[index] > 0


def test_weighted_follows_the_weights() -> None:
    counts = Counter(
        draw_weighted(5, f"w/{i}", ["x", "y"], [Fraction(1, 4), Fraction(3, 4)])
        for i in range(4000)
    )
    assert 0.70 < counts["y"] / 4000 < 0.80


def test_weighted_rejects_bad_weights() -> None:
    with pytest.raises(ValueError):
        draw_weighted(0, "x", ["a", "b"], [0, 0])
    with pytest.raises(ValueError):
        draw_weighted(0, "x", ["a", "b"], [1, -1])
    with pytest.raises(ValueError):
        draw_weighted(0, "x", ["a", "b"], [1])


def test_exact_weight_reads_floats_as_printed() -> None:
    assert exact_weight(0.05) == Fraction(1, 20)
    assert exact_weight(0.1) + exact_weight(0.2) == Fraction(3, 10)


@settings(max_examples=50)
@given(seed=SEEDS, label=LABELS, items=st.lists(st.integers(), max_size=10))
def test_shuffle_is_a_permutation_and_leaves_the_input_alone(
    seed: int, label: str, items: list[int]
) -> None:
    original = list(items)
    result = shuffle(seed, label, items)
    assert sorted(result) == sorted(items)
    assert items == original


def test_choice_draws_every_option_eventually_and_rejects_empty() -> None:
    assert {draw_choice(9, f"c/{i}", "abc") for i in range(60)} == {"a", "b", "c"}
    with pytest.raises(ValueError):
        draw_choice(9, "c", [])
