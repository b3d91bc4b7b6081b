"""The study report's comparisons between conditions (docs/studies.md, "Comparisons"): for
each factor, each outcome the experiment names (``study_outcomes()`` of its views) by the
factor's level, with intervals, a test between the levels chosen by rule, its effect size,
and each level against the reference level (the factor's first value), Holm-corrected.

The unit is the run: a run's agents play together, so they are not independent. A factor's
level pools the runs of every value of the other factors (its marginal)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from maai.projections.figures import Estimate, interval_plot
from maai.projections.history import History
from maai.projections.markup import Markup, heading, join, paragraph, table
from maai.projections.report import Section
from maai.projections.statistics import (
    Difference,
    TestResult,
    corrected,
    independence,
    mean_difference,
    mean_interval,
    rate_difference,
    wilson_interval,
)


@dataclass(frozen=True)
class Outcome:
    """A per-run outcome to compare. ``of`` gives a run's value, ``None`` where the run does
    not count (not ended, no decision): ``bool`` for a ``rate``, a category for
    ``categories``, a number for a ``mean``."""

    name: str
    kind: Literal["rate", "categories", "mean"]
    unit: str  # what a value is: "share of the ended discussions", "$ per participant"
    of: Callable[[History], Any]
    categories: dict[str, str] = field(default_factory=dict)  # category -> its name
    counted: str = ""  # which runs count, in words


def _slug(words: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", words.lower()).strip("-")


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def comparison_section(
    runs: Sequence[Any], factors: dict[str, list[Any]], outcomes: Sequence[Outcome]
) -> Section:
    """``runs``: ``projections.study_report.StudyRun``; ``factors``: label -> its values in
    the study file's order (the first is the reference level)."""
    parts: list[str] = [
        paragraph(
            "Each factor's levels compared, pooling the runs of every value of the other "
            "factors; the unit is the run. The reference level is the factor's first value. "
            'Tests are chosen by rule (docs/studies.md, "Statistics"): χ² only when every '
            "expected count is at least 5, else an exact test; the pairwise p-values of one "
            "factor and outcome are corrected by Holm's method."
        )
    ]
    if not factors:
        parts.append(paragraph("One condition: nothing to compare.", "no-data"))
    # Each run's value of each outcome, read once whatever the number of factors (a run's
    # outcomes one after another: an experiment may keep what it read of the last run).
    by_run = [[outcome.of(run.history) for outcome in outcomes] for run in runs] if factors else []
    per_run = [[values[i] for values in by_run] for i in range(len(outcomes))]
    for factor, levels in factors.items():
        parts.append(heading(3, f"Factor {factor}"))
        if len(levels) < 2:
            parts.append(paragraph("One level: nothing to compare.", "no-data"))
            continue
        for outcome, values in zip(outcomes, per_run, strict=True):
            texts = [_value_text(v) for v in levels]
            parts.append(_outcome_block(_by_level(runs, values, factor, texts), factor, outcome))
    return Section("Comparisons between conditions", join(parts))


def _by_level(
    runs: Sequence[Any], values: Sequence[Any], factor: str, levels: list[str]
) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {level: [] for level in levels}
    for run, value in zip(runs, values, strict=True):
        level = _value_text(run.factors.get(factor))
        if value is not None and level in found:
            found[level].append(value)
    return found


def _outcome_block(values: dict[str, list[Any]], factor: str, outcome: Outcome) -> Markup:
    levels = list(values)
    title = f"{outcome.name} by {factor}"
    head = [heading(4, title)]
    if outcome.counted:
        head.append(paragraph(f"Counted: {outcome.counted}."))
    if outcome.kind == "mean":
        body = _means(factor, levels, values, outcome)
    elif outcome.kind == "rate":
        body = _rates(factor, levels, values, outcome)
    else:
        body = _categories(levels, values, outcome)
    return join([*head, *body])


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _test_line(test: TestResult) -> Markup:
    if test.p_value is None:
        words = f"Between the levels: {test.name}, n = {test.n}: no test: {test.not_applicable}."
    else:
        statistic = f"χ² = {test.statistic:.3f}, df = {test.dof}, " if test.dof is not None else ""
        effect = f"; {test.effect[0]} = {test.effect[1]:.3f}" if test.effect else ""
        note = f" ({test.note})" if test.note else ""
        words = (
            f"Between the levels: {test.name}, n = {test.n}, {statistic}p = {test.p_value:.4f}"
            f"{effect}{note}. Assumes {test.assumptions}."
        )
    return paragraph(words)


def _pairwise(differences: list[Difference], what: str, digits: int = 3) -> Markup:
    rows = []
    for d in corrected(differences):
        interval = (
            f"[{d.low:+.{digits}f}, {d.high:+.{digits}f}]"
            if d.low is not None and d.high is not None
            else "—"
        )
        rows.append(
            (
                f"{d.level} vs {d.reference}",
                f"{d.difference:+.{digits}f}" if d.difference == d.difference else "—",
                interval,
                d.test.name,
                _p(d.test.p_value)
                if d.test.p_value is not None
                else f"— ({d.test.not_applicable})",
                _p(d.adjusted_p),
            )
        )
    columns = ["comparison", what, "95% CI", "test", "p", "p (Holm)"]
    return table(columns, rows)


def _rates(
    factor: str, levels: list[str], values: dict[str, list[Any]], outcome: Outcome
) -> list[Markup]:
    counts = {level: (sum(1 for v in values[level] if v), len(values[level])) for level in levels}
    estimates, rows = [], []
    for level, (yes, n) in counts.items():
        if n == 0:
            rows.append((level, 0, 0, "—"))
            continue
        low, high = wilson_interval(yes, n)
        estimates.append(Estimate(level, yes / n, low, high, n))
        rows.append((level, n, yes, f"{yes / n:.2f} [{low:.2f}, {high:.2f}]"))
    parts = [
        interval_plot(
            _slug(f"compare-{factor}-{outcome.name}"),
            f"{outcome.name} by {factor} (95% Wilson intervals)",
            estimates,
            x_label=factor,
            y_label=outcome.unit,
            y_range=(0, 1),
        )
        if estimates
        else paragraph("No run counts yet.", "no-data"),
        table(["level", "n (runs)", "yes", "rate [95% CI]"], rows),
        _test_line(independence({lvl: {"yes": y, "no": n - y} for lvl, (y, n) in counts.items()})),
    ]
    reference = levels[0]
    ref_yes, ref_n = counts[reference]
    differences = [
        rate_difference(level, yes, n, reference, ref_yes, ref_n)
        for level, (yes, n) in counts.items()
        if level != reference and n and ref_n
    ]
    if differences:
        parts.append(_pairwise(differences, "risk difference"))
    return parts


def _categories(levels: list[str], values: dict[str, list[Any]], outcome: Outcome) -> list[Markup]:
    names = outcome.categories or {c: c for c in sorted({v for vs in values.values() for v in vs})}
    counts = {level: {c: values[level].count(c) for c in names} for level in levels}
    rows = [(level, len(values[level]), *(counts[level][c] for c in names)) for level in levels]
    parts = [
        table(["level", "n (runs)", *names.values()], rows),
        _test_line(independence(counts)),
    ]
    reference = levels[0]
    pairs = []
    for level in levels[1:]:
        test = independence({level: counts[level], reference: counts[reference]})
        effect = f"{test.effect[1]:.3f}" if test.effect else "—"
        pairs.append((level, reference, test, effect))
    adjusted = corrected(
        [Difference(level, ref, float("nan"), None, None, test) for level, ref, test, _ in pairs]
    )
    rows2 = [
        (
            f"{level} vs {ref}",
            effect,
            test.name,
            _p(test.p_value) if test.p_value is not None else f"— ({test.not_applicable})",
            _p(d.adjusted_p),
        )
        for (level, ref, test, effect), d in zip(pairs, adjusted, strict=True)
    ]
    if rows2:
        parts.append(table(["comparison", "Cramér's V", "test", "p", "p (Holm)"], rows2))
    return parts


def _means(
    factor: str, levels: list[str], values: dict[str, list[Any]], outcome: Outcome
) -> list[Markup]:
    estimates, rows = [], []
    for level in levels:
        known = [float(v) for v in values[level]]
        if not known:
            rows.append((level, 0, "—"))
            continue
        result = mean_interval(known)
        estimates.append(Estimate(level, result.mean, result.low, result.high, result.n))
        interval = (
            f"[{result.low:.3f}, {result.high:.3f}]"
            if result.low is not None and result.high is not None
            else f"({result.note})"
        )
        rows.append((level, result.n, f"{result.mean:.3f} {interval}"))
    parts = [
        interval_plot(
            _slug(f"compare-{factor}-{outcome.name}"),
            f"{outcome.name} by {factor} (95% t intervals)",
            estimates,
            x_label=factor,
            y_label=outcome.unit,
        )
        if estimates
        else paragraph("No run counts yet.", "no-data"),
        table(["level", "n (runs)", "mean [95% CI]"], rows),
    ]
    reference = levels[0]
    differences = [
        mean_difference(level, values[level], reference, values[reference])
        for level in levels[1:]
        if values[level] and values[reference]
    ]
    if differences:
        parts.append(_pairwise(differences, "difference of means"))
    return parts
