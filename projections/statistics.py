"""The statistics of the study report (docs/studies.md, "Report"): pure functions over counts.

- :func:`wilson_interval`: the Wilson score interval of a proportion; the normal quantile
  comes from the standard library (``statistics.NormalDist``), so it needs nothing installed.
- :func:`chi_square_test`: Pearson's χ² goodness-of-fit test of observed counts against a
  reference distribution, by ``scipy.stats.chisquare`` (the ``analysis`` extra, imported only
  here, on use). Without scipy the result says so instead of failing.
- :func:`mean_interval`: a mean with Student's t interval; the t quantile comes from scipy,
  and without it the mean comes with no interval and a note saying why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

NO_SCIPY = "install maai[analysis] for the tests (scipy)"
SMALL_EXPECTED = 5.0
"""Below this expected count in some category the χ² approximation is rough (Cochran's rule);
the test is still reported, with a note."""


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``trials``:
    (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z the normal quantile at
    1 − (1 − confidence)/2. Unlike p̂ ± z·√(p̂(1−p̂)/n) it stays within [0, 1] and is not
    empty at 0 or n successes. ``trials`` must be positive."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, not {successes}/{trials}")
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    share = successes / trials
    scale = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / scale
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / scale
    # At 0 or n successes that end is exactly 0 or 1; rounding error must not move it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class ChiSquare:
    """A χ² goodness-of-fit test, or why it was not made (``statistic`` is then ``None``).

    ``categories`` are those tested: a category the reference gives probability 0 and that
    was never observed is left out (it adds nothing to χ² and no degree of freedom)."""

    observed: dict[str, int]
    expected: dict[str, float]  # counts: n × the reference probability
    categories: tuple[str, ...]
    statistic: float | None = None
    dof: int | None = None
    p_value: float | None = None
    not_applicable: str | None = None
    note: str | None = None

    @property
    def n(self) -> int:
        return sum(self.observed.values())


def chi_square_test(observed: Mapping[str, int], reference: Mapping[str, float]) -> ChiSquare:
    """Pearson's χ² = Σ (O − E)² / E over the categories, E = n × the reference probability,
    with (categories − 1) degrees of freedom; p from the χ² distribution (scipy). Categories
    are the reference's (an observed category it lacks has probability 0).

    Not applicable (never an error): no observation; fewer than two categories with a
    positive probability; a category observed although the reference gives it probability 0
    (the reference rules it out, whatever χ² says); scipy missing."""
    names = list(reference) + sorted(set(observed) - set(reference))
    counts = {name: int(observed.get(name, 0)) for name in names}
    n = sum(counts.values())
    expected = {name: n * float(reference.get(name, 0.0)) for name in names}
    tested = tuple(name for name in names if reference.get(name, 0.0) > 0)
    result = ChiSquare(counts, expected, tested)

    def without(reason: str) -> ChiSquare:
        return ChiSquare(counts, expected, tested, not_applicable=reason)

    if n == 0:
        return without("no observation")
    impossible = [name for name in names if reference.get(name, 0.0) == 0 and counts[name]]
    if impossible:
        listed = ", ".join(f"{name} ({counts[name]})" for name in impossible)
        return without(f"observed where the reference gives probability 0: {listed}")
    if len(tested) < 2:
        return without("fewer than two categories with a positive probability")
    try:
        from scipy.stats import chisquare
    except ImportError:
        return without(NO_SCIPY)
    fitted = chisquare([counts[name] for name in tested], [expected[name] for name in tested])
    small = [name for name in tested if expected[name] < SMALL_EXPECTED]
    note = (
        f"expected count below {SMALL_EXPECTED:g} in {', '.join(small)}: the χ² "
        "approximation is rough at this size"
        if small
        else None
    )
    return ChiSquare(
        result.observed,
        result.expected,
        tested,
        statistic=float(fitted.statistic),
        dof=len(tested) - 1,
        p_value=float(fitted.pvalue),
        note=note,
    )


@dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` values and its confidence interval (``low``/``high`` ``None``, with
    ``note`` saying why, where none can be given)."""

    n: int
    mean: float
    low: float | None = None
    high: float | None = None
    note: str | None = None


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> MeanInterval:
    """Student's t interval for the mean of independent values: x̄ ± t·s/√n, s the sample
    standard deviation (n − 1 in its denominator) and t the quantile of the t distribution
    with n − 1 degrees of freedom at 1 − (1 − confidence)/2 (scipy). ``values`` must not be
    empty. One value has no spread: no interval."""
    n = len(values)
    if n == 0:
        raise ValueError("need at least one value for a mean")
    mean = math.fsum(values) / n
    if n == 1:
        return MeanInterval(n, mean, note="one value: no interval")
    try:
        from scipy.stats import t
    except ImportError:
        return MeanInterval(n, mean, note=NO_SCIPY)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(t.ppf(1 - (1 - confidence) / 2, n - 1)) * spread / math.sqrt(n)
    return MeanInterval(n, mean, mean - half, mean + half)
