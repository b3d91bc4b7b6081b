"""docs/frohlich.md §1–§2 on the base set, money, draws, speaking orders and ballots, by example."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from maai.domain.frohlich.config import FrohlichConfig, Multiplier
from maai.domain.frohlich.rules import (
    DEFAULT_PROBABILITIES,
    Distribution,
    DistributionSet,
    Pick,
    apply_principle,
    average,
    base_set,
    config_probabilities,
    counterfactuals,
    draw_class,
    exact_probabilities,
    explain_principles,
    floor,
    is_consensus,
    multiplier_for,
    payoff_cents,
    range_,
    scale,
    speaking_order,
    tally,
)
from maai.domain.frohlich.types import IncomeClass, Principle, PrincipleChoice

BASE = base_set()
A, B, C, D = (
    Principle.FLOOR,
    Principle.AVERAGE,
    Principle.FLOOR_CONSTRAINT,
    Principle.RANGE_CONSTRAINT,
)


def pick(principle: Principle, amount: int | None = None) -> tuple[int, bool]:
    app = apply_principle(
        PrincipleChoice(principle=principle, amount=amount), BASE, DEFAULT_PROBABILITIES
    )
    return app.distribution_number, app.constraint_satisfied


def test_base_set_statistics() -> None:
    assert [average(d, DEFAULT_PROBABILITIES) for d in BASE.distributions] == [
        20_750,
        19_150,
        19_850,
        18_050,
    ]
    assert [floor(d) for d in BASE.distributions] == [12_000, 13_000, 14_000, 15_000]
    assert [range_(d) for d in BASE.distributions] == [20_000, 15_000, 17_000, 6_000]


def test_probabilities_are_exact() -> None:
    assert DEFAULT_PROBABILITIES[IncomeClass.HIGH] == Fraction(1, 20)
    assert sum(DEFAULT_PROBABILITIES.values()) == 1
    config = FrohlichConfig(agents=[{"name": "alice"}, {"name": "bob"}])
    assert config_probabilities(config) == DEFAULT_PROBABILITIES


def test_probabilities_that_do_not_sum_exactly_to_one_are_normalized() -> None:
    third = 0.3333333333333333
    probs = exact_probabilities(
        {IncomeClass.HIGH: third, IncomeClass.MEDIUM_HIGH: third, IncomeClass.MEDIUM: third,
         IncomeClass.MEDIUM_LOW: 0.0, IncomeClass.LOW: 0.0}
    )  # fmt: skip
    assert sum(probs.values()) == 1
    assert probs[IncomeClass.HIGH] == Fraction(1, 3)


def test_uniform_probabilities_give_the_plain_mean() -> None:
    uniform = {c: Fraction(1, 5) for c in IncomeClass}
    assert average(BASE.get(1), uniform) == Fraction(32_000 + 27_000 + 24_000 + 13_000 + 12_000, 5)


@pytest.mark.parametrize(
    ("principle", "amount", "number", "satisfied"),
    [
        (A, None, 4, True),
        (B, None, 1, True),
        (C, 1, 1, True),
        (C, 12_000, 1, True),
        (C, 12_001, 3, True),
        (C, 13_000, 3, True),
        (C, 14_000, 3, True),
        (C, 14_001, 4, True),
        (C, 15_000, 4, True),
        (C, 15_001, 4, False),
        (C, 1_000_000, 4, False),
        (D, 1, 4, False),
        (D, 5_999, 4, False),
        (D, 6_000, 4, True),
        (D, 14_999, 4, True),
        (D, 15_000, 2, True),
        (D, 16_999, 2, True),
        (D, 17_000, 3, True),
        (D, 19_999, 3, True),
        (D, 20_000, 1, True),
        (D, 1_000_000, 1, True),
    ],
)
def test_spec_mapping_for_the_base_set(
    principle: Principle, amount: int | None, number: int, satisfied: bool
) -> None:
    assert pick(principle, amount) == (number, satisfied)


def spans(picks: tuple[Pick, ...]) -> list[tuple[int | None, int | None, int, bool]]:
    return [
        (p.min_amount, p.max_amount, p.distribution_number, p.constraint_satisfied) for p in picks
    ]


def test_explanation_reproduces_the_spec_intervals() -> None:
    e = explain_principles(BASE, DEFAULT_PROBABILITIES)
    assert (e.floor_pick.distribution_number, e.average_pick.distribution_number) == (4, 1)
    assert spans(e.floor_constraint) == [
        (1, 12_000, 1, True),
        (12_001, 14_000, 3, True),
        (14_001, 15_000, 4, True),
        (15_001, None, 4, False),
    ]
    assert spans(e.range_constraint) == [
        (1, 5_999, 4, False),
        (6_000, 14_999, 4, True),
        (15_000, 16_999, 2, True),
        (17_000, 19_999, 3, True),
        (20_000, None, 1, True),
    ]
    assert [f.average for f in e.distributions] == [20_750, 19_150, 19_850, 18_050]


def test_explanation_finds_the_pick_for_a_choice() -> None:
    e = explain_principles(BASE, DEFAULT_PROBABILITIES)
    found = e.pick_for(PrincipleChoice(principle=C, amount=13_000))
    assert (found.distribution_number, found.min_amount, found.max_amount) == (3, 12_001, 14_000)
    assert e.pick_for(PrincipleChoice(principle=A)) == e.floor_pick


def test_counterfactuals_for_the_low_class() -> None:
    result = counterfactuals(BASE, IncomeClass.LOW, DEFAULT_PROBABILITIES)
    assert [(c.distribution_number, c.income, c.payoff_cents) for c in result] == [
        (1, 12_000, 120),
        (2, 13_000, 130),
        (3, 14_000, 140),
        (4, 15_000, 150),
    ]
    fourth = result[3].picked_by
    assert Pick(principle=A, distribution_number=4) in fourth
    assert (
        Pick(principle=C, distribution_number=4, min_amount=15_001, constraint_satisfied=False)
        in fourth
    )
    assert [p.principle for p in result[1].picked_by] == [D]  # only (d) 15,000..16,999 picks 2


def test_counterfactuals_for_the_high_class() -> None:
    incomes = [c.income for c in counterfactuals(BASE, IncomeClass.HIGH, DEFAULT_PROBABILITIES)]
    assert incomes == [32_000, 28_000, 31_000, 21_000]


@pytest.mark.parametrize(
    ("income", "cents"),
    [
        (12_000, 120),
        (12_345, 123),
        (12_350, 124),
        (12_250, 122),
        (12_351, 124),
        (0, 0),
        (49, 0),
        (50, 0),
        (150, 2),
    ],
)
def test_payoff_cents(income: int, cents: int) -> None:
    assert payoff_cents(income) == cents


def test_payoff_rejects_negative_income() -> None:
    with pytest.raises(ValueError):
        payoff_cents(-1)


def test_scale_rounds_half_to_even_on_the_printed_multiplier() -> None:
    dset = DistributionSet.from_incomes([(5, 7, 10, 3, 1), (2, 2, 2, 2, 2)])
    assert scale(dset, 0.5).get(1).incomes == (2, 4, 5, 2, 0)
    # 1.15 * 10 is 11.499999999999998 in binary floating point, but 11.5 -> 12 as decimals.
    assert scale(dset, 1.15).get(1).incomes == (6, 8, 12, 3, 1)
    assert scale(BASE, 2.0).get(1).incomes == (64_000, 54_000, 48_000, 26_000, 24_000)
    assert scale(BASE, 1.0) == BASE


def test_scale_rejects_non_positive_multipliers() -> None:
    with pytest.raises(ValueError):
        scale(BASE, 0.0)


def test_distribution_set_must_be_numbered_in_order() -> None:
    with pytest.raises(ValueError):
        DistributionSet(distributions=(Distribution(number=2, incomes=(1, 1, 1, 1, 1)),))
    with pytest.raises(ValueError):
        Distribution(number=1, incomes=(1, 1, 1, 1, -1))


def test_base_set_comes_from_the_config() -> None:
    rows = [[10, 9, 8, 7, 6], [20, 10, 5, 5, 1]]
    config = FrohlichConfig(agents=[{"name": "alice"}, {"name": "bob"}], distributions=rows)
    assert base_set(config) == DistributionSet.from_incomes(rows)
    assert base_set(FrohlichConfig(agents=[{"name": "a"}, {"name": "b"}])) == BASE


def test_multiplier_fixed_or_drawn() -> None:
    assert multiplier_for(Multiplier(fixed=1.25), 1, "m") == 1.25
    ranged = Multiplier(low=0.5, high=2.0)
    draws = [multiplier_for(ranged, 1, f"phase1/alice/round{r}/multiplier") for r in range(2, 5)]
    assert all(0.5 <= m <= 2.0 for m in draws)
    assert len(set(draws)) == 3
    assert multiplier_for(ranged, 1, "phase1/alice/round2/multiplier") == draws[0]


def test_draw_class_follows_the_probabilities() -> None:
    counts = Counter(draw_class(0, f"c/{i}", DEFAULT_PROBABILITIES) for i in range(4000))
    assert 0.45 < counts[IncomeClass.MEDIUM] / 4000 < 0.55
    assert 0.02 < counts[IncomeClass.HIGH] / 4000 < 0.08
    assert draw_class(3, "x", DEFAULT_PROBABILITIES) == draw_class(3, "x", DEFAULT_PROBABILITIES)


def test_speaking_order_with_two_agents_is_forced() -> None:
    for i in range(20):
        assert speaking_order(i, "r", ["alice", "bob"], "alice") == ["bob", "alice"]
        assert speaking_order(i, "r", ["alice", "bob"], "bob") == ["alice", "bob"]


def test_speaking_order_keeps_every_allowed_order_possible() -> None:
    agents = ["a", "b", "c"]
    orders = Counter(tuple(speaking_order(1, f"r/{i}", agents, "a")) for i in range(1200))
    assert set(orders) == {("b", "a", "c"), ("b", "c", "a"), ("c", "a", "b"), ("c", "b", "a")}
    assert min(orders.values()) > 200  # roughly uniform: 300 expected each


def test_speaking_order_rejects_bad_agent_lists() -> None:
    with pytest.raises(ValueError):
        speaking_order(0, "r", ["alice"], None)
    with pytest.raises(ValueError):
        speaking_order(0, "r", ["alice", "alice"], None)


def test_consensus_and_tally() -> None:
    c13 = PrincipleChoice(principle=C, amount=13_000)
    c12 = PrincipleChoice(principle=C, amount=12_000)
    a = PrincipleChoice(principle=A)
    assert is_consensus([c13, c13.model_copy(), PrincipleChoice(principle=C, amount=13_000)])
    assert not is_consensus([c13, c12])
    assert not is_consensus([c13, None])
    assert not is_consensus([])
    assert is_consensus([a, a])
    assert tally([c13, None, a, c12, c13]) == [(a, 1), (c12, 1), (c13, 2), (None, 1)]
    assert tally([c13, a]) == tally([a, c13])
