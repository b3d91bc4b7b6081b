"""The study report's statistics (projections/statistics.py) against reference values: R's
documented results (quoted with the call that gives them), published tables, values worked
by hand, and brute-force enumerations written here that share no code with the module."""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction

import pytest

from maai.projections.statistics import (
    CHI_SQUARE,
    EXACT_MULTINOMIAL,
    FFH,
    NO_SCIPY,
    clopper_pearson_interval,
    goodness_of_fit,
    holm,
    independence,
    mean_difference,
    mean_interval,
    newcombe_interval,
    rate_difference,
    wilson_interval,
)

Z95 = 1.959963984540054  # the normal distribution's 0.975 quantile


def wilson_by_hand(successes: int, trials: int) -> tuple[float, float]:
    share = successes / trials
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials**2)) / (1 + z2 / trials)
    return centre - half, centre + half


def test_the_wilson_interval_of_8_out_of_10() -> None:
    low, high = wilson_interval(8, 10)
    # p̂ = 0.8, z² = 3.8415: centre 0.99207 / 1.38415 = 0.71674, half 0.31362 / 1.38415
    assert low == pytest.approx(0.490162, abs=1e-6)
    assert high == pytest.approx(0.943318, abs=1e-6)
    assert (low, high) == pytest.approx(wilson_by_hand(8, 10), abs=1e-12)


@pytest.mark.parametrize(("successes", "trials"), [(1, 3), (5, 7), (17, 40)])
def test_the_wilson_interval_is_the_formula(successes: int, trials: int) -> None:
    assert wilson_interval(successes, trials) == pytest.approx(
        wilson_by_hand(successes, trials), abs=1e-12
    )


def test_at_none_or_all_successes_the_interval_reaches_exactly_0_or_1() -> None:
    assert wilson_interval(0, 5)[0] == 0.0
    assert wilson_interval(0, 5)[1] == pytest.approx(wilson_by_hand(0, 5)[1])
    assert wilson_interval(5, 5) == (pytest.approx(wilson_by_hand(5, 5)[0]), 1.0)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_chi_square_is_used_when_every_expected_count_is_at_least_5() -> None:
    # 30 of 40 against 0.5: expected 20 and 20; χ² = 2 × 10²/20 = 10, df 1, p = erfc(√5).
    test = goodness_of_fit({"yes": 30, "no": 10}, {"yes": 0.5, "no": 0.5})
    assert test.name == CHI_SQUARE and test.n == 40
    assert test.statistic == pytest.approx(10.0)
    assert test.dof == 1
    assert test.p_value == pytest.approx(math.erfc(math.sqrt(5)), rel=1e-9)
    assert "at least 5" in test.assumptions


def test_below_5_expected_the_exact_multinomial_test_is_used_and_equals_binom_test() -> None:
    # R's ?binom.test example (Conover 1971): binom.test(c(682, 243), p = 3/4) gives
    # p-value = 0.3825 and the 95% interval 0.7076683 0.7654066. With two categories the
    # exact multinomial test is the two-sided binomial test, so it must give R's p; the
    # reference is made to ask for the exact test by a third category of tiny probability.
    test = goodness_of_fit({"a": 682, "b": 243}, {"a": 0.75, "b": 0.25})
    assert test.name == CHI_SQUARE  # every expected count is large: χ²
    exact = goodness_of_fit({"a": 682, "b": 243, "c": 0}, {"a": 0.75, "b": 0.25 - 1e-9, "c": 1e-9})
    assert exact.name == EXACT_MULTINOMIAL
    assert exact.p_value == pytest.approx(0.3825, abs=5e-5)
    assert clopper_pearson_interval(682, 925) == pytest.approx((0.7076683, 0.7654066), abs=1e-7)


def multinomial_by_brute_force(counts: list[int], probabilities: list[float]) -> float:
    """Every sequence of n draws (not every count vector), each with its product of
    probabilities, gathered by the counts it gives; p sums the count vectors no more probable
    than the observed one."""
    n = len(probabilities)
    by_counts: dict[tuple[int, ...], float] = {}
    for sequence in itertools.product(range(n), repeat=sum(counts)):
        key = tuple(sequence.count(i) for i in range(n))
        by_counts[key] = by_counts.get(key, 0.0) + math.prod(probabilities[i] for i in sequence)
    observed = by_counts[tuple(counts)]
    return sum(p for p in by_counts.values() if p <= observed * (1 + 1e-7))


@pytest.mark.parametrize(
    ("counts", "probabilities"),
    [([4, 0, 1], [0.2, 0.3, 0.5]), ([1, 1, 4, 0], [0.12, 0.1, 0.53, 0.25]), ([0, 6], [0.4, 0.6])],
)
def test_the_exact_multinomial_p_is_the_brute_force_sum(
    counts: list[int], probabilities: list[float]
) -> None:
    names = [f"c{i}" for i in range(len(counts))]
    test = goodness_of_fit(
        dict(zip(names, counts, strict=True)), dict(zip(names, probabilities, strict=True))
    )
    assert test.name == EXACT_MULTINOMIAL
    assert test.p_value == pytest.approx(
        multinomial_by_brute_force(counts, probabilities), rel=1e-9
    )


def test_one_agreement_per_cell_is_too_small_for_any_test_and_says_so() -> None:
    # n = 2 against (0.5, 0.5): the least probable outcomes (2, 0) and (0, 2) give p = 0.5.
    test = goodness_of_fit({"a": 2, "b": 0}, {"a": 0.5, "b": 0.5})
    assert test.p_value is None
    assert "too small" in (test.not_applicable or "") and "0.5" in (test.not_applicable or "")


@pytest.mark.parametrize(
    ("observed", "reference", "reason"),
    [
        ({"a": 0, "b": 0}, {"a": 0.5, "b": 0.5}, "no observation"),
        ({"a": 3, "d": 1}, {"a": 0.5, "b": 0.5, "d": 0.0}, "probability 0: d (1)"),
        ({"a": 3, "e": 1}, {"a": 0.5, "b": 0.5}, "probability 0: e (1)"),
        ({"a": 3}, {"a": 1.0, "b": 0.0}, "fewer than two categories"),
    ],
)
def test_a_test_that_cannot_be_made_says_why_and_never_raises(
    observed: dict[str, int], reference: dict[str, float], reason: str
) -> None:
    test = goodness_of_fit(observed, reference)
    assert test.statistic is None and test.p_value is None
    assert reason in (test.not_applicable or "")


def test_without_scipy_the_test_asks_for_the_analysis_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # import fails as if not installed
    test = goodness_of_fit({"a": 30, "b": 50}, {"a": 0.5, "b": 0.5})
    assert test.statistic is None and test.not_applicable == NO_SCIPY
    assert "maai[analysis]" in NO_SCIPY


def test_fishers_tea_tasting_gives_r_s_p() -> None:
    # R's ?fisher.test: TeaTasting = matrix(c(3, 1, 1, 3), 2) gives p-value = 0.4857; by hand
    # the tables with these margins have probabilities 1, 16, 36, 16, 1 (/70), and those no
    # more probable than the observed 16/70 sum to 34/70.
    test = independence({"milk first": {"milk": 3, "tea": 1}, "tea first": {"milk": 1, "tea": 3}})
    assert test.name == FFH
    assert test.p_value == pytest.approx(34 / 70, abs=1e-12)
    assert rate_difference("a", 3, 4, "b", 1, 4).test.p_value == pytest.approx(34 / 70)


def tables_by_brute_force(cells: list[list[int]]) -> float:
    """Every r × c table whose cells are at most n, kept when its margins are the observed
    ones; hypergeometric probabilities from exact factorials."""
    rows, columns = len(cells), len(cells[0])
    row_sums = [sum(r) for r in cells]
    column_sums = [sum(c) for c in zip(*cells, strict=True)]
    n = sum(row_sums)

    def probability(table: list[list[int]]) -> Fraction:
        top = math.prod(math.factorial(k) for k in row_sums + column_sums)
        bottom = math.factorial(n) * math.prod(math.factorial(k) for r in table for k in r)
        return Fraction(top, bottom)

    observed = probability(cells)
    total = Fraction(0)
    for flat in itertools.product(range(max(row_sums) + 1), repeat=rows * columns):
        table = [list(flat[i * columns : (i + 1) * columns]) for i in range(rows)]
        if [sum(r) for r in table] == row_sums and [
            sum(c) for c in zip(*table, strict=True)
        ] == column_sums:
            p = probability(table)
            if p <= observed:
                total += p
    return float(total)


@pytest.mark.parametrize(
    "cells", [[[4, 0, 1], [0, 3, 2]], [[2, 1, 0], [0, 1, 2], [1, 1, 0]], [[4, 0], [1, 2], [0, 3]]]
)
def test_the_freeman_halton_p_is_the_brute_force_sum(cells: list[list[int]]) -> None:
    table = {f"row{i}": {f"col{j}": k for j, k in enumerate(row)} for i, row in enumerate(cells)}
    test = independence(table)
    assert test.name == FFH
    if test.p_value is None:
        pytest.fail(f"no p: {test.not_applicable}")
    assert test.p_value == pytest.approx(tables_by_brute_force(cells), rel=1e-9)


def test_a_large_table_is_drawn_seeded_and_agrees_with_r() -> None:
    # R's ?fisher.test, job satisfaction by income (Agresti 2002, p. 57):
    # Job <- matrix(c(1,2,1,0, 3,3,6,1, 10,10,14,9, 6,7,12,11), 4, 4); fisher.test(Job)
    # gives p-value = 0.7827. Too many tables to enumerate: 20,000 random ones (standard
    # error about 0.003), seeded, so the same table gives the same p.
    columns = [[1, 2, 1, 0], [3, 3, 6, 1], [10, 10, 14, 9], [6, 7, 12, 11]]
    table = {f"income{i}": {f"job{j}": columns[j][i] for j in range(4)} for i in range(4)}
    test = independence(table)
    assert test.name == FFH and "random tables" in (test.note or "")
    assert test.p_value == pytest.approx(0.7827, abs=0.012)
    assert independence(table).p_value == test.p_value


def test_a_pair_is_too_small_only_when_its_group_sizes_are() -> None:
    # 5 of 8 against 8 of 8: with margins 8, 8 and 13, 3 the tables with 5..8 yes in the
    # first row have probabilities 56, 224, 224, 56 (/560), so p = 0.2 (R: fisher.test(
    # matrix(c(5, 3, 8, 0), 2)) gives 0.2). Groups of 8 could show a difference: a p is given.
    pair = rate_difference("b", 5, 8, "a", 8, 8)
    assert pair.test.p_value == pytest.approx(0.2, abs=1e-12)
    # Groups of 2 and 2 could not: even 2 of 2 against 0 of 2 gives 2/6 = 0.333.
    small = rate_difference("b", 0, 2, "a", 2, 2)
    assert small.test.p_value is None
    assert "groups of 2, 2" in (small.test.not_applicable or "")
    assert "p = 0.333" in (small.test.not_applicable or "")


def test_chi_square_and_cramers_v_for_a_large_table() -> None:
    # Perfect association, 10 and 10: χ² = 4 × 5²/5 = 20, df 1; V = √(20 / 20) = 1.
    test = independence({"a": {"yes": 10, "no": 0}, "b": {"yes": 0, "no": 10}})
    assert test.name == CHI_SQUARE and test.dof == 1
    assert test.statistic == pytest.approx(20.0)
    assert test.p_value == pytest.approx(math.erfc(math.sqrt(10)), rel=1e-9)
    assert test.effect == ("Cramér's V", pytest.approx(1.0))


def test_a_table_without_two_conditions_or_two_outcomes_is_not_tested() -> None:
    assert "fewer than two" in (independence({"a": {"x": 3}}).not_applicable or "")
    same = independence({"a": {"x": 3}, "b": {"x": 2}})
    assert "same outcome" in (same.not_applicable or "")
    assert "too small" in (independence({"a": {"x": 1}, "b": {"y": 1}}).not_applicable or "")


@pytest.mark.parametrize(
    ("counts", "interval"),
    # Newcombe (1998), Statistics in Medicine 17:873, Table II, method 10.
    [((56, 70, 48, 80), (0.0524, 0.3339)), ((9, 10, 3, 10), (0.1705, 0.8090))],
)
def test_newcombes_interval_matches_his_table(
    counts: tuple[int, int, int, int], interval: tuple[float, float]
) -> None:
    assert newcombe_interval(*counts) == pytest.approx(interval, abs=5e-5)


def test_welch_on_r_s_sleep_data() -> None:
    # R: t.test(extra ~ group, data = sleep) gives t = -1.8608, df = 17.776,
    # p-value = 0.07939, 95 percent confidence interval -3.3654832 0.2054832.
    one = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    two = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    difference = mean_difference("1", one, "2", two)
    assert difference.test.statistic == pytest.approx(-1.8608, abs=5e-5)
    assert difference.test.p_value == pytest.approx(0.07939, abs=5e-6)
    assert (difference.low, difference.high) == pytest.approx((-3.3654832, 0.2054832), abs=1e-7)
    assert difference.difference == pytest.approx(-1.58)


def test_holm_as_r_s_p_adjust() -> None:
    # p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02: 0.005 × 4, 0.01 × 3,
    # 0.03 × 2 = 0.06, then 0.04 × 1 raised to the 0.06 before it.
    assert holm([0.01, 0.04, 0.03, 0.005, None]) == pytest.approx([0.03, 0.06, 0.06, 0.02, None])
    assert holm([0.5, 0.9]) == [1.0, 1.0]


def test_the_t_interval_of_three_values_by_hand() -> None:
    # Mean 0.5; s² = (0.09 + 0.01 + 0.16) / 2 = 0.13; t(0.975, 2 df) = 4.302653 (tables);
    # half-width 4.302653 × √0.13 / √3 = 0.895669.
    result = mean_interval([0.2, 0.4, 0.9])
    assert result.n == 3 and result.mean == pytest.approx(0.5)
    assert result.name == "Student's t interval" and "independent" in result.assumptions
    assert result.low == pytest.approx(0.5 - 0.895669, abs=1e-6)
    assert result.high == pytest.approx(0.5 + 0.895669, abs=1e-6)


def test_one_value_has_a_mean_and_no_interval() -> None:
    result = mean_interval([0.7])
    assert result.mean == 0.7 and result.low is None and result.high is None
    assert "one value" in (result.note or "")
    equal = mean_interval([0.25, 0.25])  # no spread: the interval is the point
    assert (equal.low, equal.high) == (0.25, 0.25)
    with pytest.raises(ValueError):
        mean_interval([])


def test_without_scipy_the_mean_comes_without_an_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    result = mean_interval([0.2, 0.4])
    assert result.mean == pytest.approx(0.3) and result.low is None and result.note == NO_SCIPY
