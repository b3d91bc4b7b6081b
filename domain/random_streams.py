"""Named random streams derived from a run's seed (docs/frohlich.md §7).

Every draw in a run comes from a stream named by a stable label (``phase1/alice/round3/class``),
so a draw depends on the seed and its label only, never on how many draws happened before it
or in which order concurrent steps ran. The stream seed is a SHA-256 digest because ``hash()``
is salted per process and would break replay.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

T = TypeVar("T")


def stream_seed(seed: int, label: str) -> int:
    """The integer that seeds the stream ``label`` of run ``seed``."""
    digest = hashlib.sha256(f"{seed}:{label}".encode()).digest()
    return int.from_bytes(digest, "big")


def stream(seed: int, label: str) -> random.Random:
    """A fresh generator for one label; the same (seed, label) always yields the same sequence."""
    return random.Random(stream_seed(seed, label))


def draw_uniform(seed: int, label: str, low: float, high: float) -> float:
    """A uniform draw on [low, high]."""
    if low > high:
        raise ValueError(f"low ({low}) is above high ({high})")
    if low == high:
        return low
    return stream(seed, label).uniform(low, high)


def exact_weight(weight: float | int | Fraction | Decimal) -> Fraction:
    """A weight as an exact fraction; floats are read as the decimal they print as (0.05 → 1/20)."""
    if isinstance(weight, Fraction):
        return weight
    if isinstance(weight, float):
        return Fraction(Decimal(repr(weight)))
    return Fraction(weight)


def draw_weighted(
    seed: int,
    label: str,
    options: Sequence[T],
    weights: Sequence[float | int | Fraction | Decimal],
) -> T:
    """One option drawn with probability proportional to its weight.

    The draw is an exact integer draw over the common denominator of the weights, so a
    zero-weight option can never come out and no float rounding shifts the odds.
    """
    if len(options) != len(weights):
        raise ValueError("options and weights differ in length")
    exact = [exact_weight(w) for w in weights]
    if any(w < 0 for w in exact):
        raise ValueError("weights must not be negative")
    if not any(exact):
        raise ValueError("at least one weight must be positive")
    denominator = math.lcm(*(w.denominator for w in exact))
    scaled = [int(w * denominator) for w in exact]
    point = stream(seed, label).randrange(sum(scaled))
    for option, weight in zip(options, scaled, strict=True):
        if point < weight:
            return option
        point -= weight
    raise AssertionError("unreachable: point is below the total weight")


def draw_choice(seed: int, label: str, options: Sequence[T]) -> T:
    """One option drawn uniformly."""
    if not options:
        raise ValueError("no options to choose from")
    return options[stream(seed, label).randrange(len(options))]


def shuffle(seed: int, label: str, items: Sequence[T]) -> list[T]:
    """A uniformly shuffled copy of ``items``."""
    result = list(items)
    stream(seed, label).shuffle(result)
    return result
