"""The study report's statistics (projections/statistics.py) against values computed by hand."""

from __future__ import annotations

import math
import sys

import pytest

from maai.projections.statistics import (
    NO_SCIPY,
    chi_square_test,
    mean_interval,
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


def test_chi_square_of_a_small_table_by_hand() -> None:
    # n = 10, expected 1.2, 1.0, 7.8: χ² = 0.8²/1.2 + 0²/1.0 + 0.8²/7.8 = 0.53333 + 0.08205;
    # (d) has probability 0 and no observation: left out, so df = 2 and p = exp(-χ²/2).
    test = chi_square_test(
        {"a": 2, "b": 1, "c": 7, "d": 0}, {"a": 0.12, "b": 0.1, "c": 0.78, "d": 0}
    )
    assert test.categories == ("a", "b", "c")
    assert test.statistic == pytest.approx(0.64 / 1.2 + 0.64 / 7.8, abs=1e-12)
    assert test.statistic == pytest.approx(0.615385, abs=1e-6)
    assert test.dof == 2
    assert test.p_value == pytest.approx(math.exp(-test.statistic / 2), abs=1e-12)
    assert test.expected == pytest.approx({"a": 1.2, "b": 1.0, "c": 7.8, "d": 0.0})
    assert "a, b" in (test.note or "")  # expected counts below 5


def test_chi_square_with_one_degree_of_freedom() -> None:
    # 30 of 40 against 0.5: χ² = 2 × 10²/20 = 10, df 1, p = erfc(√(10/2)).
    test = chi_square_test({"yes": 30, "no": 10}, {"yes": 0.5, "no": 0.5})
    assert test.statistic == pytest.approx(10.0)
    assert test.dof == 1
    assert test.p_value == pytest.approx(math.erfc(math.sqrt(5)), rel=1e-9)
    assert test.note is None


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
    test = chi_square_test(observed, reference)
    assert test.statistic is None and test.p_value is None
    assert reason in (test.not_applicable or "")


def test_without_scipy_the_test_asks_for_the_analysis_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # import fails as if not installed
    test = chi_square_test({"a": 3, "b": 5}, {"a": 0.5, "b": 0.5})
    assert test.statistic is None and test.not_applicable == NO_SCIPY
    assert "maai[analysis]" in NO_SCIPY


def test_the_t_interval_of_three_values_by_hand() -> None:
    # Mean 0.5; s² = (0.09 + 0.01 + 0.16) / 2 = 0.13; t(0.975, 2 df) = 4.302653 (tables);
    # half-width 4.302653 × √0.13 / √3 = 0.895669.
    result = mean_interval([0.2, 0.4, 0.9])
    assert result.n == 3 and result.mean == pytest.approx(0.5)
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
