"""The Frohlich experiment's sections of ``maai study report`` (docs/studies.md, "Report"; the
rules: docs/frohlich.md): by condition (the study's cells), the agreement rate, the agreed
principle against the study file's reference distribution (``agreed_principle``) with a
goodness-of-fit test chosen by rule (χ² or exact multinomial, ``projections/statistics.py``),
the rounds to consensus, the Phase-1 and Phase-2 payoffs and, where a
manipulator took part, how often the group adopted its target.

Built from the experiment's table rows (the same read models as the CSV export) and the
``discussion.ended`` event, per run; then counted per cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from maai.domain.frohlich.events import DiscussionEnded
from maai.domain.study import Reference
from maai.projections.figures import Estimate, Series, grouped_interval_plot, interval_plot
from maai.projections.frohlich.report import LETTERS, SHORT_NAMES
from maai.projections.history import History
from maai.projections.markup import Markup, figures, join, paragraph, table
from maai.projections.report import Section
from maai.projections.statistics import (
    TestResult,
    goodness_of_fit,
    mean_interval,
    wilson_interval,
)
from maai.projections.study_report import StudyRun, condition_axis

STATISTIC = "agreed_principle"


@dataclass(frozen=True)
class RunResult:
    """What one run contributes to the counts (``None``: not known yet)."""

    ended: bool  # the discussion ended (with or without an agreement)
    agreement: str | None  # the agreed principle's letter
    rounds_used: int | None
    phase1: float | None  # mean payoff per participant, dollars
    phase2: float | None
    target: str | None  # the manipulator's target, when there was one
    target_adopted: bool | None


@dataclass(frozen=True)
class Condition:
    label: str  # the short one, for axes
    words: str  # every factor value
    results: list[RunResult]

    @property
    def ended(self) -> list[RunResult]:
        return [r for r in self.results if r.ended]

    @property
    def agreed(self) -> list[RunResult]:
        return [r for r in self.results if r.agreement is not None]

    def counts(self) -> dict[str, int]:
        return {p: sum(1 for r in self.agreed if r.agreement == p) for p in LETTERS}


def run_result(history: History) -> RunResult:
    views: Any = history.experiment.views() if history.experiment else None
    rows = views.table_rows(history) if views is not None else {}
    conditions = (rows.get("conditions") or [{}])[0]
    ended = history.of(DiscussionEnded)
    agents = max(len(history.agent_names), 1)

    def mean_payoff(scope: str) -> float | None:
        paid = [r for r in rows.get("payoffs", []) if r["scope"] == scope]
        if not paid:
            return None
        return sum(r.get("payoff_cents") or 0 for r in paid) / 100 / agents

    return RunResult(
        ended=bool(ended),
        agreement=conditions.get("agreement"),
        rounds_used=ended[-1][1].rounds_used if ended else None,
        phase1=mean_payoff("phase1"),
        phase2=mean_payoff("phase2"),
        target=conditions.get("target"),
        target_adopted=conditions.get("target_adopted"),
    )


def conditions_of(runs: Sequence[StudyRun]) -> list[Condition]:
    cells: dict[int, Condition] = {}
    for run in runs:
        cell = cells.setdefault(run.cell, Condition(run.short, run.condition, []))
        cell.results.append(run_result(run.history))
    return list(cells.values())


def study_report(runs: Sequence[StudyRun], reference: Reference | None) -> list[Section]:
    conditions = conditions_of(runs)
    axis = condition_axis(runs)
    sections = [
        agreement_section(conditions, reference, axis),
        rounds_section(conditions, axis),
        payoffs_section(conditions, axis),
    ]
    if any(r.target for c in conditions for r in c.results):
        sections.append(target_section(conditions, axis))
    return sections


def _rate_estimate(label: str, part: int, whole: int) -> Estimate:
    low, high = wilson_interval(part, whole)
    return Estimate(label, part / whole, low, high, whole)


def _mean_estimate(label: str, values: Sequence[float]) -> Estimate | None:
    if not values:
        return None
    result = mean_interval(values)
    return Estimate(label, result.mean, result.low, result.high, result.n)


def _rate(part: int, whole: int) -> str:
    if whole == 0:
        return "—"
    low, high = wilson_interval(part, whole)
    return f"{part / whole:.2f} [{low:.2f}, {high:.2f}]"


def agreement_section(
    conditions: list[Condition], reference: Reference | None, axis: str
) -> Section:
    rate_plot = interval_plot(
        "agreement-rate",
        "Agreement rate by condition (95% Wilson intervals)",
        [_rate_estimate(c.label, len(c.agreed), len(c.ended)) for c in conditions if c.ended],
        x_label=axis,
        y_label="share of the ended discussions that agreed",
        y_range=(0, 1),
    )
    distribution = reference.distributions.get(STATISTIC) if reference else None
    groups = [c.label for c in conditions]
    notes = [f"n = {len(c.agreed)}" for c in conditions]
    series = [
        Series(
            SHORT_NAMES[p],
            [
                _rate_estimate(c.label, c.counts()[p], len(c.agreed)) if c.agreed else None
                for c in conditions
            ],
        )
        for p in LETTERS
    ]
    if distribution is not None:
        groups.append("reference")
        notes.append("(no n)")
        for letter, one in zip(LETTERS, series, strict=True):
            share = distribution.get(letter, 0.0)
            one.estimates.append(Estimate("reference", share, None, None, 0))
    principle_plot = grouped_interval_plot(
        "agreed-principle",
        "Agreed principle by condition (share of the agreements, 95% Wilson intervals)"
        + ("; the reference as crosses" if distribution is not None else ""),
        groups,
        notes,
        series,
        x_label=axis,
        y_label="share of the agreements",
        y_range=(0, 1),
    )
    rows = [
        (
            c.label,
            c.words,
            len(c.results),
            len(c.ended),
            len(c.agreed),
            _rate(len(c.agreed), len(c.ended)),
            *c.counts().values(),
        )
        for c in conditions
    ]
    columns = ["condition", "factor values", "runs", "ended", "agreed"]
    columns += ["agreement rate [95% CI]", *(f"({p})" for p in LETTERS)]
    parts = [figures(rate_plot, principle_plot), table(columns, rows)]
    parts.append(
        paragraph(
            "Agreement rate: the runs whose discussion reached a unanimous ballot, over the "
            "runs whose discussion ended; the interval is Wilson's 95% score interval. A run "
            "still running or stopped before the end of the discussion counts in neither."
        )
    )
    parts.append(reference_test(conditions, reference))
    return Section("Agreement and the agreed principle", join(parts))


def reference_test(conditions: list[Condition], reference: Reference | None) -> Markup:
    """A goodness-of-fit test of each condition's agreed principles (and of all conditions pooled)
    against the reference distribution, or a line saying there is none."""
    distribution = reference.distributions.get(STATISTIC) if reference else None
    if reference is None or distribution is None:
        return paragraph(
            f"No reference distribution: the study file gives no `reference: {STATISTIC}:` "
            '(docs/studies.md, "Report"), so the agreed principles are not tested against one.',
            "no-data",
        )
    pooled: dict[str, int] = {p: 0 for p in LETTERS}
    rows = []
    for condition in conditions:
        counts = condition.counts()
        for letter, count in counts.items():
            pooled[letter] += count
        rows.append(_test_row(condition.label, goodness_of_fit(counts, distribution)))
    if len(conditions) > 1:
        rows.append(_test_row("all conditions", goodness_of_fit(pooled, distribution)))
    source = reference.source or "no source given"
    expected = ", ".join(f"({p}) {distribution.get(p, 0.0):g}" for p in LETTERS)
    columns = ["condition", "agreements", "test", "statistic", "df", "p", "note"]
    return join(
        [
            paragraph(
                f"Against the reference ({source}): {expected}. The test is chosen by rule "
                '(docs/studies.md, "Statistics"): Pearson\'s χ² goodness-of-fit test when every '
                "expected count (n × the reference's probability) is at least 5, else the exact "
                "multinomial test; a sample too small for any outcome to reach p < 0.05 gets no "
                "p-value. A principle the reference gives probability 0 is left out when no "
                "group agreed on it, and makes the test not applicable when one did."
            ),
            table(columns, rows),
        ]
    )


def _test_row(label: str, test: TestResult) -> tuple[Any, ...]:
    if test.p_value is None:
        return (label, test.n, test.name, "—", "—", "—", f"no test: {test.not_applicable}")
    statistic = f"χ² = {test.statistic:.3f}" if test.dof is not None else "—"
    return (
        label,
        test.n,
        test.name,
        statistic,
        test.dof if test.dof is not None else "—",
        f"{test.p_value:.4f}",
        test.note or "",
    )


def rounds_section(conditions: list[Condition], axis: str) -> Section:
    used = [[r.rounds_used for r in c.agreed if r.rounds_used is not None] for c in conditions]
    plot = interval_plot(
        "rounds-to-consensus",
        "Rounds to consensus by condition (mean over the runs that agreed, 95% t intervals)",
        [e for c, u in zip(conditions, used, strict=True) if (e := _mean_estimate(c.label, u))],
        x_label=axis,
        y_label="discussion rounds",
    )
    rows = [
        (
            c.label,
            len(u),
            min(u) if u else "—",
            f"{sum(u) / len(u):.2f}" if u else "—",
            max(u) if u else "—",
        )
        for c, u in zip(conditions, used, strict=True)
    ]
    note = paragraph(
        "Rounds to consensus: the discussion round whose secret ballot was unanimous "
        "(docs/frohlich.md); runs without an agreement are left out."
    )
    columns = ["condition", "agreements", "fewest", "mean", "most"]
    return Section("Rounds to consensus", join([figures(plot), table(columns, rows), note]))


def _phase1_of(result: RunResult) -> float | None:
    return result.phase1


def _phase2_of(result: RunResult) -> float | None:
    return result.phase2


def payoffs_section(conditions: list[Condition], axis: str) -> Section:
    groups = [c.label for c in conditions]
    plot = grouped_interval_plot(
        "payoffs-by-condition",
        "Mean payoff per participant by condition (95% t intervals over runs)",
        groups,
        [f"n = {sum(1 for r in c.results if r.phase2 is not None)}" for c in conditions],
        [
            Series(
                phase,
                [
                    _mean_estimate(c.label, [v for r in c.results if (v := pick(r)) is not None])
                    for c in conditions
                ],
            )
            for phase, pick in (("Phase 1", _phase1_of), ("Phase 2", _phase2_of))
        ],
        x_label=axis,
        y_label="payoff per participant ($)",
    )

    def dollars(values: list[float]) -> str:
        if not values:
            return "—"
        result = mean_interval(values)
        if result.low is None or result.high is None:
            return f"${result.mean:,.2f} ({result.note}), n={result.n}"
        return f"${result.mean:,.2f} [${result.low:,.2f}, ${result.high:,.2f}], n={result.n}"

    rows = [
        (
            c.label,
            dollars([r.phase1 for r in c.results if r.phase1 is not None]),
            dollars([r.phase2 for r in c.results if r.phase2 is not None]),
        )
        for c in conditions
    ]
    note = paragraph(
        "Per participant: a run's payments in that phase over its participants, averaged over "
        "the condition's runs that made any ($1 for every $10,000 of income, docs/frohlich.md)."
    )
    columns = ["condition", "Phase 1 [95% CI], runs", "Phase 2 [95% CI], runs"]
    return Section("Payoffs by condition", join([figures(plot), table(columns, rows), note]))


def target_section(conditions: list[Condition], axis: str) -> Section:
    with_target = [c for c in conditions if any(r.target for r in c.results)]
    decided = [[r for r in c.results if r.target_adopted is not None] for c in with_target]
    plot = interval_plot(
        "target-adoption",
        "Manipulator's target adopted, by condition (95% Wilson intervals)",
        [
            _rate_estimate(c.label, sum(1 for r in d if r.target_adopted), len(d))
            for c, d in zip(with_target, decided, strict=True)
            if d
        ],
        x_label=f"{axis} (with a manipulator)",
        y_label="share of the ended discussions",
        y_range=(0, 1),
    )
    rows = []
    for condition, done in zip(with_target, decided, strict=True):
        adopted = sum(1 for r in done if r.target_adopted)
        targets = sorted({f"({r.target})" for r in condition.results if r.target})
        rate = _rate(adopted, len(done))
        rows.append((condition.label, ", ".join(targets), len(done), adopted, rate))
    note = paragraph(
        "Target adoption: the group agreed on the principle the manipulator was told to steer "
        "it to (the lowest Borda score over the others' Phase-1 rankings, docs/frohlich.md "
        "§8), over the runs whose "
        "discussion ended; Wilson's 95% interval."
    )
    columns = ["condition", "targets", "ended", "adopted", "rate [95% CI]"]
    return Section("The manipulator's target", join([figures(plot), table(columns, rows), note]))
