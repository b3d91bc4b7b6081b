"""The Fisher–Freeman–Halton exact test of an r × c table (docs/studies.md, "Statistics";
used by ``projections/statistics.py``): every table with the observed margins enumerated, or
``MONTE_CARLO_DRAWS`` seeded random ones where there are more than ``ENUMERATION_LIMIT``."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

ENUMERATION_LIMIT = 2_000_000
"""Above this many possible tables an exact test draws ``MONTE_CARLO_DRAWS`` random ones."""
MONTE_CARLO_DRAWS = 20_000
MONTE_CARLO_SEED = 20_260_101
TIE = 1 + 1e-7
"""Outcomes this close in probability to the observed one count as extreme (as R does)."""


@dataclass(frozen=True)
class ExactP:
    p_value: float
    drawn: bool  # from random tables, not every one


def freeman_halton(cells: Sequence[Sequence[int]]) -> ExactP:
    """The Fisher–Freeman–Halton p of an r × c table: every table with its margins, each with
    its probability ∏ row! ∏ column! / (n! ∏ cell!); p sums those no more probable than the
    observed one."""
    row_sums = [sum(row) for row in cells]
    column_sums = [sum(row[j] for row in cells) for j in range(len(cells[0]))]
    n = sum(row_sums)
    constant = (
        sum(math.lgamma(k + 1) for k in row_sums)
        + sum(math.lgamma(k + 1) for k in column_sums)
        - math.lgamma(n + 1)
    )

    def log_probability(table: Sequence[Sequence[int]]) -> float:
        return constant - sum(math.lgamma(k + 1) for row in table for k in row)

    observed = log_probability(cells) + math.log(TIE)
    if table_count_above(row_sums, column_sums, ENUMERATION_LIMIT):
        return _drawn(cells, row_sums, observed, log_probability)
    p = 0.0
    for table in _tables(row_sums, column_sums):
        value = log_probability(table)
        if value <= observed:
            p += math.exp(value)
    return ExactP(min(1.0, p), drawn=False)


def _tables(row_sums: Sequence[int], column_sums: Sequence[int]) -> Iterator[list[list[int]]]:
    """Every table of non-negative counts with these margins, row by row."""
    if len(row_sums) == 1:
        yield [list(column_sums)]
        return
    first, rest = row_sums[0], row_sums[1:]
    for row in _bounded(first, column_sums):
        remaining = [c - k for c, k in zip(column_sums, row, strict=True)]
        for tail in _tables(rest, remaining):
            yield [list(row), *tail]


def _bounded(total: int, bounds: Sequence[int]) -> Iterator[tuple[int, ...]]:
    if len(bounds) == 1:
        if total <= bounds[0]:
            yield (total,)
        return
    room = sum(bounds[1:])
    for first in range(max(0, total - room), min(total, bounds[0]) + 1):
        for rest in _bounded(total - first, bounds[1:]):
            yield (first, *rest)


def table_count_above(row_sums: Sequence[int], column_sums: Sequence[int], limit: int) -> bool:
    """Whether there are more than ``limit`` tables, bounded without enumerating: each row but
    the last is one of at most C(row + c − 1, c − 1) compositions."""
    bound = 1
    for total in row_sums[:-1]:
        bound *= math.comb(total + len(column_sums) - 1, len(column_sums) - 1)
        if bound > limit:
            return True
    return False


def _drawn(
    cells: Sequence[Sequence[int]],
    row_sums: Sequence[int],
    observed: float,
    log_probability: Callable[[Sequence[Sequence[int]]], float],
) -> ExactP:
    """Monte Carlo: shuffle the outcomes over the observations (margins kept), seeded; p =
    (1 + tables as extreme) / (1 + draws)."""
    import numpy as np

    rng = np.random.default_rng(MONTE_CARLO_SEED)
    outcomes = np.repeat(np.arange(len(cells[0])), [sum(col) for col in zip(*cells, strict=True)])
    groups = np.repeat(np.arange(len(cells)), row_sums)
    extreme = 0
    for _ in range(MONTE_CARLO_DRAWS):
        shuffled = rng.permutation(outcomes)
        table = np.zeros((len(cells), len(cells[0])), dtype=int)
        np.add.at(table, (groups, shuffled), 1)
        if log_probability(table.tolist()) <= observed:
            extreme += 1
    return ExactP((1 + extreme) / (1 + MONTE_CARLO_DRAWS), drawn=True)
