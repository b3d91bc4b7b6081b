"""Frohlich's original situations A–D (docs/frohlich.md "Original-values mode"): in that mode
Phase-1 round k is paid from situation k's four distributions, each situation with its own
class probabilities, instead of the base set times a multiplier."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from maai.domain.frohlich.types import INCOME_CLASSES, IncomeClass


@dataclass(frozen=True)
class Situation:
    name: str  # "A".."D"
    distributions: tuple[tuple[int, ...], ...]  # Dist 1..4, incomes high..low
    probabilities: MappingProxyType[IncomeClass, float]  # high..low, as published


def _situation(name: str, dists: list[list[int]], probs: list[float]) -> Situation:
    return Situation(
        name=name,
        distributions=tuple(tuple(d) for d in dists),
        probabilities=MappingProxyType(dict(zip(INCOME_CLASSES, probs, strict=True))),
    )


SITUATIONS: tuple[Situation, ...] = (
    _situation(
        "A",
        [
            [28_000, 25_000, 20_000, 15_000, 12_000],
            [35_000, 30_000, 25_000, 15_000, 10_000],
            [30_000, 29_000, 28_000, 27_000, 6_000],
            [25_000, 22_000, 19_000, 16_000, 13_000],
        ],
        [0.10, 0.20, 0.40, 0.20, 0.10],
    ),
    _situation(
        "B",
        [
            [17_000, 16_000, 15_000, 14_000, 13_000],
            [30_000, 25_000, 20_000, 15_000, 12_500],
            [40_000, 30_000, 25_000, 20_000, 8_000],
            [26_000, 24_000, 22_000, 20_000, 11_000],
        ],
        [0.06306, 0.208333, 0.283333, 0.345274, 0.10],
    ),
    _situation(
        "C",
        [
            [100_000, 30_000, 20_000, 15_000, 13_000],
            [35_000, 30_000, 25_000, 20_000, 8_000],
            [30_000, 25_000, 23_000, 15_000, 12_000],
            [24_000, 23_000, 22_000, 21_000, 11_000],
        ],
        [0.013334, 0.043333, 0.583333, 0.26, 0.10],
    ),
    _situation(
        "D",
        [
            [35_000, 30_000, 25_000, 20_000, 13_000],
            [30_000, 28_000, 26_000, 24_000, 12_000],
            [20_000, 18_000, 16_000, 14_000, 12_000],
            [30_000, 28_000, 24_000, 20_000, 14_000],
        ],
        [0.05, 0.208333, 0.283333, 0.358334, 0.10],
    ),
)


def situation_of_round(round_: int) -> Situation:
    """Round 1 plays situation A, round 2 B, round 3 C, round 4 D."""
    return SITUATIONS[round_ - 1]
