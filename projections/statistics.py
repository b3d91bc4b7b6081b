"""The statistics of the study report (docs/studies.md, "Statistics"): pure functions over
counts and values. Each test returns a :class:`TestResult` with its name, n, the assumptions
it rests on, and either its p-value or the reason it gives none.

The test is chosen by rule (:func:`goodness_of_fit`, :func:`independence`): Pearson's χ² only
when every expected count is at least ``SMALL_EXPECTED``; otherwise an exact test (the exact
multinomial test against a reference; Fisher–Freeman–Halton for a table of conditions ×
outcomes). An exact test at an n too small for any outcome to reach ``ALPHA`` gives no
p-value and says so. Intervals: Wilson and Clopper–Pearson for rates, Student's t for means,
Newcombe's hybrid score interval for a difference of rates, Welch's for a difference of
means. Several comparisons are corrected by Holm's step-down method. The exact test of a
table is ``projections/exact_tables.py``.

scipy (the ``analysis`` extra) is imported only here, on use; without it a result says so."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist

from maai.projections.exact_tables import (
    ENUMERATION_LIMIT,
    MONTE_CARLO_DRAWS,
    MONTE_CARLO_SEED,
    TIE,
    freeman_halton,
    table_count_above,
)

NO_SCIPY = "install maai[analysis] for the tests (scipy)"
SMALL_EXPECTED = 5.0
"""χ² only when every expected count is at least this (Cochran's rule); else an exact test."""
ALPHA = 0.05
"""The level below which no outcome of an exact test could fall marks a sample too small."""


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``trials``:
    (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z the normal quantile at
    1 − (1 − confidence)/2. Unlike p̂ ± z·√(p̂(1−p̂)/n) it stays within [0, 1] and is not
    empty at 0 or n successes. ``trials`` must be positive."""
    _check_rate(successes, trials)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    share = successes / trials
    scale = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / scale
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / scale
    # At 0 or n successes that end is exactly 0 or 1; rounding error must not move it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def clopper_pearson_interval(
    successes: int, trials: int, confidence: float = 0.95
) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval: the β quantiles at (1 − confidence)/2 of
    Beta(k, n − k + 1) and at 1 − (1 − confidence)/2 of Beta(k + 1, n − k) (scipy)."""
    from scipy.stats import beta

    _check_rate(successes, trials)
    tail = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(beta.ppf(tail, successes, trials - successes + 1))
    high = (
        1.0 if successes == trials else float(beta.ppf(1 - tail, successes + 1, trials - successes))
    )
    return low, high


def _check_rate(successes: int, trials: int) -> None:
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, not {successes}/{trials}")


@dataclass(frozen=True)
class TestResult:
    """A test, made or not. ``p_value`` is ``None`` exactly when ``not_applicable`` says why
    (no data, a sample too small, scipy missing). ``effect`` is an effect size by name
    (``Cramér's V``) where the test has one."""

    __test__ = False  # not a pytest class

    name: str
    n: int
    assumptions: str
    statistic: float | None = None
    dof: int | None = None
    p_value: float | None = None
    not_applicable: str | None = None
    note: str | None = None
    effect: tuple[str, float] | None = None
    expected: dict[str, float] = field(default_factory=dict)

    def without(self, reason: str) -> TestResult:
        return replace(self, statistic=None, dof=None, p_value=None, not_applicable=reason)


CHI_SQUARE = "Pearson's χ² test"
EXACT_MULTINOMIAL = "exact multinomial test"
FFH = "Fisher–Freeman–Halton exact test"
FISHER = "Fisher's exact test"
CHI_ASSUMES = "independent observations; every expected count at least 5"
EXACT_ASSUMES = "independent observations; no large-sample approximation"


def goodness_of_fit(observed: Mapping[str, int], reference: Mapping[str, float]) -> TestResult:
    """The observed counts against a reference distribution (category → probability): χ²
    with (categories − 1) degrees of freedom when every expected count n·p is at least
    ``SMALL_EXPECTED``, else the exact multinomial test (p: the total probability, under the
    reference, of the outcomes no more probable than the one observed). A category the
    reference gives probability 0 is left out when unobserved; observed, it makes the test
    not applicable (the reference rules it out)."""
    names = list(reference) + sorted(set(observed) - set(reference))
    counts = {name: int(observed.get(name, 0)) for name in names}
    n = sum(counts.values())
    expected = {name: n * float(reference.get(name, 0.0)) for name in names}
    tested = [name for name in names if reference.get(name, 0.0) > 0]
    chi = n > 0 and all(expected[name] >= SMALL_EXPECTED for name in tested)
    result = TestResult(
        CHI_SQUARE if chi else EXACT_MULTINOMIAL,
        n,
        CHI_ASSUMES if chi else EXACT_ASSUMES,
        expected=expected,
    )
    if n == 0:
        return result.without("no observation")
    impossible = [name for name in names if reference.get(name, 0.0) == 0 and counts[name]]
    if impossible:
        listed = ", ".join(f"{name} ({counts[name]})" for name in impossible)
        return result.without(f"observed where the reference gives probability 0: {listed}")
    if len(tested) < 2:
        return result.without("fewer than two categories with a positive probability")
    try:
        from scipy.stats import chisquare
    except ImportError:
        return result.without(NO_SCIPY)
    values = [counts[name] for name in tested]
    fitted = chisquare(values, [expected[name] for name in tested])
    statistic = float(fitted.statistic)
    if chi:
        return replace(
            result, statistic=statistic, dof=len(tested) - 1, p_value=float(fitted.pvalue)
        )
    probabilities = [reference[name] for name in tested]
    p, smallest = _exact_multinomial(values, probabilities)
    if smallest > ALPHA:
        return result.without(_too_small(n, smallest))
    return replace(result, statistic=statistic, p_value=p)


def _too_small(n: int, smallest: float) -> str:
    return (
        f"too small for a test: at n = {n} no outcome could give p < {ALPHA:g} "
        f"(the smallest attainable p is {smallest:.3g})"
    )


def _compositions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, parts - 1):
            yield (first, *rest)


def _exact_multinomial(
    counts: Sequence[int], probabilities: Sequence[float]
) -> tuple[float, float]:
    """(p, the smallest p any outcome could give) by enumerating every outcome of n draws;
    over ``MONTE_CARLO_DRAWS`` seeded random outcomes where there are too many (the smallest
    p is then not known: 0)."""
    n = sum(counts)
    if math.comb(n + len(counts) - 1, len(counts) - 1) > ENUMERATION_LIMIT:
        return _drawn_multinomial(counts, probabilities), 0.0
    logs = [math.log(p) for p in probabilities]
    log_n = math.lgamma(n + 1)

    def log_probability(outcome: Sequence[int]) -> float:
        return log_n + sum(k * lp - math.lgamma(k + 1) for k, lp in zip(outcome, logs, strict=True))

    observed = log_probability(counts)
    p = 0.0
    lowest = math.inf
    probabilities_seen: list[float] = []
    for outcome in _compositions(n, len(counts)):
        value = log_probability(outcome)
        if value <= observed + math.log(TIE):
            p += math.exp(value)
        probabilities_seen.append(value)
        lowest = min(lowest, value)
    smallest = math.fsum(math.exp(v) for v in probabilities_seen if v <= lowest + math.log(TIE))
    return min(1.0, p), smallest


def _drawn_multinomial(counts: Sequence[int], probabilities: Sequence[float]) -> float:
    import numpy as np
    from scipy.special import gammaln

    rng = np.random.default_rng(MONTE_CARLO_SEED)
    logs = np.log(np.asarray(probabilities))
    draws = rng.multinomial(sum(counts), probabilities, size=MONTE_CARLO_DRAWS)

    def log_probability(outcomes: np.ndarray) -> np.ndarray:
        return (outcomes * logs - gammaln(outcomes + 1)).sum(axis=-1)

    observed = float(log_probability(np.asarray([counts]))[0]) + math.log(TIE)
    extreme = int((log_probability(draws) <= observed).sum())
    return (1 + extreme) / (1 + MONTE_CARLO_DRAWS)


def independence(table: Mapping[str, Mapping[str, int]]) -> TestResult:
    """Are the outcomes independent of the condition? ``table``: condition → outcome → count.
    χ² on the (r − 1)(c − 1) degrees of freedom when every expected count is at least
    ``SMALL_EXPECTED``; otherwise the Fisher–Freeman–Halton exact test (p: the probability,
    with every margin fixed, of the tables no more probable than the one observed),
    enumerated, or over ``MONTE_CARLO_DRAWS`` seeded random tables where there are too many.
    Conditions and outcomes with no observation are left out. The effect size is Cramér's V
    = √(χ² / (n·(min(r, c) − 1)))."""
    rows = [r for r in table if sum(table[r].values()) > 0]
    columns = sorted({c for r in rows for c, k in table[r].items() if k > 0})
    cells = [[int(table[r].get(c, 0)) for c in columns] for r in rows]
    n = sum(map(sum, cells))
    row_sums = [sum(row) for row in cells]
    column_sums = [sum(row[j] for row in cells) for j in range(len(columns))]
    expected = [[rs * cs / n for cs in column_sums] for rs in row_sums] if n else []
    chi = bool(expected) and all(e >= SMALL_EXPECTED for row in expected for e in row)
    result = TestResult(CHI_SQUARE if chi else FFH, n, CHI_ASSUMES if chi else EXACT_ASSUMES)
    if len(rows) < 2:
        return result.without("fewer than two conditions with an observation")
    if len(columns) < 2:
        return result.without("every observation has the same outcome: nothing to compare")
    statistic = sum(
        (cells[i][j] - expected[i][j]) ** 2 / expected[i][j]
        for i in range(len(rows))
        for j in range(len(columns))
    )
    effect = ("Cramér's V", math.sqrt(statistic / (n * (min(len(rows), len(columns)) - 1))))
    dof = (len(rows) - 1) * (len(columns) - 1)
    result = replace(result, statistic=statistic, effect=effect)
    if chi:
        try:
            from scipy.stats import chi2
        except ImportError:
            return result.without(NO_SCIPY)
        return replace(result, dof=dof, p_value=float(chi2.sf(statistic, dof)))
    best = separated_p(row_sums, len(columns))
    if best is not None and best > ALPHA:
        return result.without(_too_small_groups(row_sums, best))
    exact = freeman_halton(cells)
    note = (
        f"p from {MONTE_CARLO_DRAWS:,} random tables with these margins (seed {MONTE_CARLO_SEED})"
        if exact.drawn
        else None
    )
    return replace(result, p_value=exact.p_value, note=note)


def separated_p(row_sums: Sequence[int], outcomes: int) -> float | None:
    """The exact p of the most telling data these group sizes allow: each group's runs all
    in an outcome of their own (the last outcome shared when there are more groups than
    outcomes). ``None`` where that table has too many neighbours to enumerate."""
    table = [[0] * outcomes for _ in row_sums]
    for i, total in enumerate(row_sums):
        table[i][min(i, outcomes - 1)] = total
    column_sums = [sum(row[j] for row in table) for j in range(outcomes)]
    if table_count_above(row_sums, column_sums, ENUMERATION_LIMIT):
        return None
    return freeman_halton(table).p_value


def _too_small_groups(row_sums: Sequence[int], best: float) -> str:
    sizes = ", ".join(str(k) for k in row_sums)
    return (
        f"too small for a test: with groups of {sizes} runs even outcomes wholly separated by "
        f"group would give p = {best:.3g}, not below {ALPHA:g}"
    )


@dataclass(frozen=True)
class Difference:
    """A comparison of one level with the reference level: the difference (of rates or
    means) with its interval, a test's p and the p after Holm's correction."""

    level: str
    reference: str
    difference: float
    low: float | None
    high: float | None
    test: TestResult
    adjusted_p: float | None = None


def newcombe_interval(
    a: int, n_a: int, b: int, n_b: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p_a − p_b (his method 10), from the two Wilson
    intervals: p_a − p_b − √((p_a − l_a)² + (u_b − p_b)²) to
    p_a − p_b + √((u_a − p_a)² + (p_b − l_b)²)."""
    low_a, high_a = wilson_interval(a, n_a, confidence)
    low_b, high_b = wilson_interval(b, n_b, confidence)
    pa, pb = a / n_a, b / n_b
    return (
        pa - pb - math.sqrt((pa - low_a) ** 2 + (high_b - pb) ** 2),
        pa - pb + math.sqrt((high_a - pa) ** 2 + (pb - low_b) ** 2),
    )


def rate_difference(level: str, a: int, n_a: int, reference: str, b: int, n_b: int) -> Difference:
    """The risk difference a/n_a − b/n_b with Newcombe's interval, tested by Fisher's exact
    test of the 2 × 2 table (the Fisher–Freeman–Halton test at r = c = 2; exact even where
    χ² would be allowed, as a pair of levels is a small sample)."""
    test = TestResult(FISHER, n_a + n_b, EXACT_ASSUMES)
    if a + b in (0, n_a + n_b):
        test = test.without("every run has the same outcome: nothing to test")
    else:
        best = separated_p([n_a, n_b], 2)
        if best is not None and best > ALPHA:
            test = test.without(_too_small_groups([n_a, n_b], best))
        else:
            test = replace(test, p_value=freeman_halton([[a, n_a - a], [b, n_b - b]]).p_value)
    low, high = newcombe_interval(a, n_a, b, n_b)
    return Difference(level, reference, a / n_a - b / n_b, low, high, test)


@dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` values and its confidence interval (``low``/``high`` ``None``, with
    ``note`` saying why, where none can be given)."""

    n: int
    mean: float
    low: float | None = None
    high: float | None = None
    note: str | None = None
    name: str = "Student's t interval"
    assumptions: str = "independent values; their mean roughly normal"


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


WELCH = "Welch's t test"
WELCH_ASSUMES = "independent runs; each level's mean roughly normal (no equal variances assumed)"


def mean_difference(
    level: str, values: Sequence[float], reference: str, reference_values: Sequence[float]
) -> Difference:
    """x̄ − ȳ with Welch's interval and test: t = (x̄ − ȳ) / √(s²ₓ/n + s²ᵧ/m), on the
    Welch–Satterthwaite degrees of freedom. Needs two values on each side and some spread."""
    n, m = len(values), len(reference_values)
    test = TestResult(WELCH, n + m, WELCH_ASSUMES)
    mean_x = math.fsum(values) / n if n else math.nan
    mean_y = math.fsum(reference_values) / m if m else math.nan
    if n < 2 or m < 2:
        return Difference(
            level,
            reference,
            mean_x - mean_y,
            None,
            None,
            test.without("fewer than two runs on a side"),
        )
    var_x = math.fsum((v - mean_x) ** 2 for v in values) / (n - 1)
    var_y = math.fsum((v - mean_y) ** 2 for v in reference_values) / (m - 1)
    error = math.sqrt(var_x / n + var_y / m)
    if error == 0:
        reason = "no spread on either side: no test"
        return Difference(level, reference, mean_x - mean_y, None, None, test.without(reason))
    try:
        from scipy.stats import t
    except ImportError:
        return Difference(level, reference, mean_x - mean_y, None, None, test.without(NO_SCIPY))
    dof = (var_x / n + var_y / m) ** 2 / ((var_x / n) ** 2 / (n - 1) + (var_y / m) ** 2 / (m - 1))
    statistic = (mean_x - mean_y) / error
    half = float(t.ppf(0.975, dof)) * error
    made = replace(test, statistic=statistic, p_value=float(2 * t.sf(abs(statistic), dof)))
    difference = mean_x - mean_y
    return Difference(level, reference, difference, difference - half, difference + half, made)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down correction: the i-th smallest of m p-values times (m − i + 1), each
    at least the one before, at most 1. ``None`` (no test) stays ``None`` and does not count
    in m."""
    known = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(known):
        running = max(running, min(1.0, p * (len(known) - rank)))
        adjusted[i] = running
    return adjusted


def corrected(differences: Sequence[Difference]) -> list[Difference]:
    """The differences with their Holm-adjusted p-values."""
    adjusted = holm([d.test.p_value for d in differences])
    return [replace(d, adjusted_p=p) for d, p in zip(differences, adjusted, strict=True)]
