"""A second, deliberately plain implementation of the Frohlich rules (docs/frohlich.md §1–§4),
for the audits. It shares no function with ``maai.domain.frohlich``: an audit that recomputed
with the code it checks would pass whenever that code is wrong. Plain data in, plain data
out: incomes as lists (one list per distribution, classes high to low), probabilities as
fractions."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

CLASSES = ("high", "medium_high", "medium", "medium_low", "low")


def fraction_of(value: float | int | str) -> Fraction:
    """A configured decimal as written (0.05 is 1/20, not the binary float below it)."""
    return Fraction(str(value))


def probabilities(config_probs: dict[str, float]) -> list[Fraction]:
    probs = [fraction_of(config_probs[c]) for c in CLASSES]
    total = sum(probs)
    return [p / total for p in probs]


def mean(incomes: list[int], probs: list[Fraction]) -> Fraction:
    return sum((p * x for p, x in zip(probs, incomes, strict=True)), Fraction(0)) / sum(probs)


def half_even(value: Fraction) -> int:
    return int(
        (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
            Decimal(1), rounding=ROUND_HALF_EVEN
        )
    )


def scaled(table: list[list[int]], multiplier: float) -> list[list[int]]:
    m = fraction_of(multiplier)
    return [[half_even(x * m) for x in dist] for dist in table]


def payoff_cents(income: int) -> int:
    """One cent per $100 of income, rounded half to even."""
    return half_even(Fraction(income, 100))


def pick(letter: str, amount: int | None, table: list[list[int]], probs: list[Fraction]) -> int:
    """The distribution (numbered from 1) a principle picks. Ties go to the lower number; an
    infeasible constraint takes the closest floor or range, then the higher average."""
    numbered = list(enumerate(table, start=1))
    avg = {n: mean(d, probs) for n, d in numbered}
    floor = {n: min(d) for n, d in numbered}
    spread = {n: max(d) - min(d) for n, d in numbered}

    def best(candidates: list[int], key: dict[int, Fraction] | dict[int, int]) -> int:
        top = max(key[n] for n in candidates)
        return min(n for n in candidates if key[n] == top)

    everyone = [n for n, _ in numbered]
    if letter == "a":
        return best(everyone, floor)
    if letter == "b":
        return best(everyone, avg)
    assert amount is not None
    if letter == "c":
        feasible = [n for n in everyone if floor[n] >= amount]
        if feasible:
            return best(feasible, avg)
        top = max(floor.values())
        return best([n for n in everyone if floor[n] == top], avg)
    feasible = [n for n in everyone if spread[n] <= amount]
    if feasible:
        return best(feasible, avg)
    low = min(spread.values())
    return best([n for n in everyone if spread[n] == low], avg)


def constraint_met(letter: str, amount: int | None, table: list[list[int]]) -> bool:
    """Whether some distribution meets a constraint principle's amount ((a) and (b) have no
    constraint, so theirs is always met)."""
    if letter == "c":
        return any(min(d) >= (amount or 0) for d in table)
    if letter == "d":
        return any(max(d) - min(d) <= (amount or 0) for d in table)
    return True


Picked = tuple[str, int | None, int | None, bool]
"""One way a principle picks a distribution: its letter, the lowest and highest amount it
holds for (both ``None`` for (a) and (b); highest ``None``: no bound), and whether the
constraint is met there."""


def picks_of(table: list[list[int]], probs: list[Fraction]) -> dict[int, list[Picked]]:
    """Which principles pick each distribution (numbered from 1), as the counterfactual rows
    name them: (a), (b), then (c)'s and (d)'s amount intervals, lowest first.

    An amount's pick can change only where it crosses a floor or a range; every such point
    (and the one after it) starts a trial interval, and neighbouring intervals with the same
    pick and the same constraint outcome are one. Each pick is ``pick`` at the interval's
    start: no interval end is taken from the code that is audited."""
    out: dict[int, list[Picked]] = {n: [] for n in range(1, len(table) + 1)}
    for letter in ("a", "b"):
        out[pick(letter, None, table, probs)].append((letter, None, None, True))
    edges = {1}
    for dist in table:
        floor, spread = min(dist), max(dist) - min(dist)
        edges |= {floor, floor + 1, spread, spread + 1}
    starts = sorted(e for e in edges if e >= 1)
    for letter in ("c", "d"):
        runs: list[tuple[int, int | None, int, bool]] = []  # low, high, distribution, met
        for i, start in enumerate(starts):
            high = starts[i + 1] - 1 if i + 1 < len(starts) else None
            picked, met = pick(letter, start, table, probs), constraint_met(letter, start, table)
            if runs and runs[-1][2:] == (picked, met):
                runs[-1] = (runs[-1][0], high, picked, met)
            else:
                runs.append((start, high, picked, met))
        for low, high, picked, met in runs:
            out[picked].append((letter, low, high, met))
    return out


def tally(ballots: list[tuple[str, int | None] | None]) -> dict[tuple[str, int | None] | None, int]:
    counts: dict[tuple[str, int | None] | None, int] = {}
    for ballot in ballots:
        counts[ballot] = counts.get(ballot, 0) + 1
    return counts


def consensus(ballots: list[tuple[str, int | None] | None]) -> bool:
    """Every ballot valid and the same principle (and amount for (c) and (d))."""
    return bool(ballots) and None not in ballots and len(set(ballots)) == 1


# Frohlich's situations A-D (original-values mode), copied from the protocol's table rather
# than imported from the domain: Dist 1..4 (incomes high..low), then the class probabilities
# high..low as published.
SITUATIONS: dict[str, tuple[list[list[int]], list[str]]] = {
    "A": (
        [
            [28000, 25000, 20000, 15000, 12000],
            [35000, 30000, 25000, 15000, 10000],
            [30000, 29000, 28000, 27000, 6000],
            [25000, 22000, 19000, 16000, 13000],
        ],
        [".10", ".20", ".40", ".20", ".10"],
    ),
    "B": (
        [
            [17000, 16000, 15000, 14000, 13000],
            [30000, 25000, 20000, 15000, 12500],
            [40000, 30000, 25000, 20000, 8000],
            [26000, 24000, 22000, 20000, 11000],
        ],
        [".06306", ".208333", ".283333", ".345274", ".10"],
    ),
    "C": (
        [
            [100000, 30000, 20000, 15000, 13000],
            [35000, 30000, 25000, 20000, 8000],
            [30000, 25000, 23000, 15000, 12000],
            [24000, 23000, 22000, 21000, 11000],
        ],
        [".013334", ".043333", ".583333", ".26", ".10"],
    ),
    "D": (
        [
            [35000, 30000, 25000, 20000, 13000],
            [30000, 28000, 26000, 24000, 12000],
            [20000, 18000, 16000, 14000, 12000],
            [30000, 28000, 24000, 20000, 14000],
        ],
        [".05", ".208333", ".283333", ".358334", ".10"],
    ),
}


def situation(round_: int) -> tuple[str, list[list[int]], list[Fraction]]:
    """The situation Phase-1 round ``round_`` plays: A for round 1 .. D for round 4."""
    name = "ABCD"[round_ - 1]
    table, probs = SITUATIONS[name]
    return name, table, [fraction_of(p) for p in probs]


def borda(rankings: list[list[str]]) -> dict[str, int]:
    """Points per principle letter: first place 3, second 2, third 1, last 0."""
    points = {"a": 0, "b": 0, "c": 0, "d": 0}
    for order in rankings:
        for place, letter in enumerate(order):
            points[letter] += 3 - place
    return points


def borda_target(points: dict[str, int]) -> str:
    """The lowest score; among tied letters the later one."""
    low = min(points.values())
    return max(letter for letter, p in points.items() if p == low)
