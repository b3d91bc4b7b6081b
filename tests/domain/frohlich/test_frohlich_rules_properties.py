"""Property tests of the rules over random distribution sets, probabilities and amounts.

The oracles below are written as plain loops over docs/frohlich.md §2's wording,
independently of the
min-over-keys code in rules.py.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.frohlich.rules import (
    DistributionSet,
    apply_principle,
    average,
    draw_class,
    explain_principles,
    payoff_cents,
    scale,
    speaking_order,
)
from maai.domain.frohlich.types import INCOME_CLASSES, IncomeClass, Principle, PrincipleChoice

# A few shared values make ties in floors, ranges and averages common.
INCOMES = st.one_of(st.integers(1, 200_000), st.sampled_from([10_000, 15_000, 20_000, 30_000]))
DSETS = st.lists(st.tuples(*[INCOMES] * 5), min_size=2, max_size=6).map(
    DistributionSet.from_incomes
)


@st.composite
def probabilities(draw: st.DrawFn, allow_zero: bool = False) -> dict[IncomeClass, Fraction]:
    weights = draw(st.lists(st.integers(0 if allow_zero else 1, 20), min_size=5, max_size=5))
    if not any(weights):
        weights[0] = 1
    return {c: Fraction(w, sum(weights)) for c, w in zip(INCOME_CLASSES, weights, strict=True)}


def amounts_for(dset: DistributionSet) -> st.SearchStrategy[int]:
    points = {
        p + delta for d in dset.distributions for p in (d.floor, d.range_) for delta in (-1, 0, 1)
    }
    return st.one_of(st.integers(1, 250_000), st.sampled_from(sorted(p for p in points if p > 0)))


def oracle(choice: PrincipleChoice, dset: DistributionSet, probs: dict) -> tuple[int, bool]:
    dists = list(dset.distributions)  # in number order
    avg = {d.number: average(d, probs) for d in dists}

    def first_with_highest(candidates: list, value) -> int:  # type: ignore[no-untyped-def]
        best = max(value(d) for d in candidates)
        return [d for d in candidates if value(d) == best][0].number

    p, x = choice.principle, choice.amount
    if p is Principle.FLOOR:
        return first_with_highest(dists, lambda d: d.floor), True
    if p is Principle.AVERAGE:
        return first_with_highest(dists, lambda d: avg[d.number]), True
    meets = (
        (lambda d: d.floor >= x) if p is Principle.FLOOR_CONSTRAINT else (lambda d: d.range_ <= x)
    )
    feasible = [d for d in dists if meets(d)]
    if feasible:
        return first_with_highest(feasible, lambda d: avg[d.number]), True
    closeness = (lambda d: d.floor) if p is Principle.FLOOR_CONSTRAINT else (lambda d: -d.range_)
    best = max(closeness(d) for d in dists)
    closest = [d for d in dists if closeness(d) == best]
    return first_with_highest(closest, lambda d: avg[d.number]), False


@settings(max_examples=150, deadline=None)
@given(data=st.data(), dset=DSETS, probs=probabilities())
def test_apply_principle_matches_the_spec(
    data: st.DataObject, dset: DistributionSet, probs: dict
) -> None:
    for principle in Principle:
        amount = data.draw(amounts_for(dset)) if principle.needs_amount else None
        choice = PrincipleChoice(principle=principle, amount=amount)
        app = apply_principle(choice, dset, probs)
        assert (app.distribution_number, app.constraint_satisfied) == oracle(choice, dset, probs)
        picked = dset.get(app.distribution_number)
        if principle is Principle.FLOOR_CONSTRAINT and app.constraint_satisfied:
            assert amount is not None and picked.floor >= amount
        if principle is Principle.RANGE_CONSTRAINT and app.constraint_satisfied:
            assert amount is not None and picked.range_ <= amount


@settings(max_examples=100, deadline=None)
@given(data=st.data(), dset=DSETS, probs=probabilities())
def test_explanation_agrees_with_apply_principle(
    data: st.DataObject, dset: DistributionSet, probs: dict
) -> None:
    e = explain_principles(dset, probs)
    for picks in (e.floor_constraint, e.range_constraint):
        # Intervals start at 1, are contiguous, end unbounded, and neighbours differ.
        assert picks[0].min_amount == 1 and picks[-1].max_amount is None
        for left, right in zip(picks, picks[1:], strict=False):
            assert left.max_amount is not None and right.min_amount == left.max_amount + 1
            assert (left.distribution_number, left.constraint_satisfied) != (
                right.distribution_number,
                right.constraint_satisfied,
            )
    for principle in Principle:
        amount = data.draw(amounts_for(dset)) if principle.needs_amount else None
        choice = PrincipleChoice(principle=principle, amount=amount)
        app = apply_principle(choice, dset, probs)
        pick = e.pick_for(choice)
        assert (pick.distribution_number, pick.constraint_satisfied) == (
            app.distribution_number,
            app.constraint_satisfied,
        )


@settings(max_examples=200)
@given(income=st.integers(0, 10**9))
def test_payoff_cents_is_exact(income: int) -> None:
    exact = Fraction(income, 10_000) * 100  # dollars per $10,000, in cents
    assert payoff_cents(income) == round(exact)  # round() on a Fraction is half-to-even
    assert abs(payoff_cents(income) - exact) <= Fraction(1, 2)


@settings(max_examples=100, deadline=None)
@given(dset=DSETS, probs=probabilities(), power=st.sampled_from([2.0, 4.0, 0.5]))
def test_exact_scaling_keeps_the_picks(dset: DistributionSet, probs: dict, power: float) -> None:
    if power < 1:  # halving is exact only on even incomes
        dset = DistributionSet.from_incomes(
            [[2 * x for x in d.incomes] for d in dset.distributions]
        )
    scaled = scale(dset, power)
    factor = Fraction(power)
    for before, after in zip(dset.distributions, scaled.distributions, strict=True):
        assert after.incomes == tuple(int(x * factor) for x in before.incomes)
    for principle in (Principle.FLOOR, Principle.AVERAGE):
        choice = PrincipleChoice(principle=principle)
        assert apply_principle(choice, scaled, probs) == apply_principle(choice, dset, probs)


@settings(max_examples=100)
@given(dset=DSETS, multiplier=st.floats(0.5, 2.0))
def test_scaling_rounds_each_income_half_to_even(dset: DistributionSet, multiplier: float) -> None:
    factor = Fraction(repr(multiplier))
    for before, after in zip(
        dset.distributions, scale(dset, multiplier).distributions, strict=True
    ):
        assert after.incomes == tuple(round(x * factor) for x in before.incomes)


@settings(max_examples=200)
@given(
    seed=st.integers(),
    label=st.text(max_size=20),
    agents=st.lists(st.text(min_size=1, max_size=8), min_size=2, max_size=8, unique=True),
    data=st.data(),
)
def test_speaking_order_obeys_the_rule(
    seed: int, label: str, agents: list[str], data: st.DataObject
) -> None:
    previous_last = data.draw(st.one_of(st.none(), st.sampled_from(agents), st.just("outsider")))
    order = speaking_order(seed, label, agents, previous_last)
    assert sorted(order) == sorted(agents)
    if previous_last in agents:
        assert order[0] != previous_last
    assert order == speaking_order(seed, label, agents, previous_last)


@settings(max_examples=100)
@given(seed=st.integers(), label=st.text(max_size=20), probs=probabilities(allow_zero=True))
def test_draw_class_only_draws_possible_classes(seed: int, label: str, probs: dict) -> None:
    assert probs[draw_class(seed, label, probs)] > 0
