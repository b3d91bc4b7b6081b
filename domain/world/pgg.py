"""The public-goods game's rules (docs/world.md §5), as pure functions: the payoff rule,
whose turn it is, and how an announcement is checked against the computed outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

CENT = Decimal("0.01")


def _round(value: Fraction) -> float:
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return float(exact.quantize(CENT, rounding=ROUND_HALF_EVEN))


def share(contributions: Mapping[str, int], multiplier: float) -> Fraction:
    """m × Σc / N, exactly (the multiplier as written in the config, e.g. 1.6 = 8/5)."""
    total = sum(contributions.values())
    return Fraction(str(multiplier)) * total / len(contributions)


def payoffs(
    contributions: Mapping[str, int], endowments: Mapping[str, int], multiplier: float
) -> dict[str, float]:
    """payoff_i = endowment_i − c_i + m × Σc / N, rounded half-even to 2 decimals."""
    each = share(contributions, multiplier)
    return {p: _round(Fraction(endowments[p] - c) + each) for p, c in contributions.items()}


def rounded_share(contributions: Mapping[str, int], multiplier: float) -> float:
    return _round(share(contributions, multiplier))


def whose_turn(
    order: Sequence[str],
    contributed: Mapping[str, object],
    positions: Mapping[str, str],
    contribution_room: str,
) -> str | None:
    """The player whose turn it is: the first in ``order`` without a contribution, once
    every player before it has left the contribution room (§5). None: nobody's turn yet
    (the previous player is still inside) or every player has contributed."""
    for i, player in enumerate(order):
        if player in contributed:
            continue
        if any(positions.get(p) == contribution_room for p in order[:i]):
            return None
        return player
    return None


def announcement_differences(
    announced: Mapping[str, float], computed: Mapping[str, float]
) -> list[str]:
    """Each way the announcement departs from the computed payoffs (within half a cent)."""
    differences: list[str] = []
    for player, value in sorted(computed.items()):  # canonical order, whatever the source
        said = announced.get(player)
        if said is None:
            differences.append(f"{player}: not announced (computed {value:.2f})")
        elif abs(Decimal(str(said)) - Decimal(str(value))) >= Decimal("0.005"):
            differences.append(f"{player}: announced {said:g}, computed {value:.2f}")
    for player in sorted(set(announced) - set(computed)):
        differences.append(f"{player}: announced but not a player")
    return differences
