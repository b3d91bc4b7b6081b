"""``maai study report STUDY``: one self-contained HTML page of a study (docs/studies.md,
"Report").

The page is built here from what every study has (its name, factors, replicates, its runs
with their cells, statuses, outcomes, calls and tokens) and from the sections its experiment
adds through the optional ``study_report(runs, reference)`` member of its views
(``maai.domain.experiment.ExperimentViews``): this module knows no experiment. The page
shell, the markup and the plots are the run report's (``projections/report.py``,
``markup.py``, ``charts.py``): no network, every text escaped, the same events and study file
give the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from maai.domain.study import STUDY_LABELS, Reference, StudyFile, label_key, label_value
from maai.projections.history import History
from maai.projections.markup import (
    Cell,
    code,
    details,
    facts,
    inline,
    join,
    paragraph,
    strong,
    table,
)
from maai.projections.report import Section, page_shell
from maai.projections.study import run_row


@dataclass(frozen=True)
class StudyRun:
    """One run of a study, placed in its cell: what an experiment's study report groups by."""

    history: History
    cell: int
    factors: dict[str, Any]  # factor label (``agents.u_value``) -> the run's value
    condition: str  # the cell's factor values in words: ``agents.u_value=0.55``
    short: str  # the cell as an axis label: the value for one factor, else ``cell N``


def value_text(value: Any) -> str:
    """A label value as the study file writes it: ``true``, ``0.55``, ``{"agent":"Dmitri"}``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def factor_labels(histories: Sequence[History], study: StudyFile | None) -> dict[str, list[Any]]:
    """Factor label -> its values: the study file's when given; otherwise read off the runs'
    labels (every label but ``study``, ``cell`` and ``replicate`` that differs between runs:
    a label the base config sets is the same in every run)."""
    if study is not None:
        return {
            label_key(path): [label_value(v) for v in values]
            for path, values in study.factors.items()
        }
    seen: dict[str, list[Any]] = {}
    for history in histories:
        for key, value in _labels(history).items():
            if key not in STUDY_LABELS and value not in seen.setdefault(key, []):
                seen[key].append(value)
    return {key: values for key, values in sorted(seen.items()) if len(values) > 1}


def _labels(history: History) -> dict[str, Any]:
    return dict(getattr(history.config, "labels", None) or {})


def study_runs(histories: Sequence[History], factors: Sequence[str]) -> list[StudyRun]:
    """Each run with its cell, in cell then run-id order."""
    runs = []
    for history in histories:
        labels = _labels(history)
        values = {factor: labels.get(factor) for factor in factors}
        cell = labels.get("cell")
        condition = ", ".join(f"{k}={value_text(v)}" for k, v in values.items()) or "one cell"
        if not values:
            short = "all runs"  # no factor: one cell, whatever the runs' labels say
        elif len(values) == 1:
            short = value_text(next(iter(values.values())))
        else:
            short = f"cell {cell}" if isinstance(cell, int) else "no cell label"
        runs.append(
            StudyRun(history, cell if isinstance(cell, int) else 0, values, condition, short)
        )
    return sorted(runs, key=lambda run: (run.cell, run.history.run_id))


def condition_axis(runs: Sequence[StudyRun]) -> str:
    """The name of an axis of conditions labelled by ``StudyRun.short``: the factor itself
    when there is one, else the cells (the study's table of cells says what each holds)."""
    factors = {key for run in runs for key in run.factors}
    return next(iter(factors)) if len(factors) == 1 else "condition (cell)"


def study_report(
    name: str, histories: Sequence[History], study: StudyFile | None, source: str | None
) -> str:
    """The whole page for a study's runs; ``study`` (read from ``source``) adds what only
    the study file knows: the planned factor values, replicates and the reference."""
    factors = factor_labels(histories, study)
    runs = study_runs(histories, list(factors))
    reference = study.reference if study is not None else None
    sections = [study_section(name, runs, factors, study, source)]
    sections += experiment_sections(runs, reference)
    sections += comparison_sections(runs, factors, study.confounds if study is not None else [])
    statuses = _by_status(runs)
    status = ", ".join(f"{n} {s}" for s, n in statuses.items() if n) or "no runs"
    return page_shell(
        f"Study {name}",
        inline(["runs: ", strong(status)]),
        sections,
        inline(
            [
                "Written by ",
                code("maai study report"),
                " from the runs' events and the study file alone; the same events give the "
                "same page. Each run's own page: ",
                code("maai report RUN_ID"),
                ".",
            ]
        ),
    )


def experiment_sections(runs: Sequence[StudyRun], reference: Reference | None) -> list[Section]:
    """Each experiment's own sections over its runs (none where its views lack
    ``study_report``)."""
    groups: dict[str, list[StudyRun]] = {}
    for run in runs:
        if run.history.experiment is not None:
            groups.setdefault(run.history.experiment.name, []).append(run)
    sections: list[Section] = []
    for group in (groups[name] for name in sorted(groups)):
        experiment = group[0].history.experiment
        assert experiment is not None
        build = getattr(experiment.views(), "study_report", None)
        if build is not None:
            sections += build(group, reference)
    return sections


def comparison_sections(
    runs: Sequence[StudyRun], factors: dict[str, list[Any]], confounds: Sequence[str]
) -> list[Section]:
    """For each experiment whose views name ``study_outcomes``, its outcomes compared between
    each factor's levels (``projections/comparison.py``), the study file's confounds first."""
    from maai.projections.comparison import comparison_section

    sections = []
    for group in _by_experiment(runs):
        experiment = group[0].history.experiment
        assert experiment is not None
        outcomes = getattr(experiment.views(), "study_outcomes", None)
        if outcomes is None:
            continue
        section = comparison_section(group, factors, outcomes())
        if confounds:
            said = paragraph(
                "Confounded by design (the study file's confounds): " + " ".join(confounds),
                "flag",
            )
            section = Section(section.title, join([said, section.body]))
        sections.append(section)
    return sections


def _by_experiment(runs: Sequence[StudyRun]) -> list[list[StudyRun]]:
    groups: dict[str, list[StudyRun]] = {}
    for run in runs:
        if run.history.experiment is not None:
            groups.setdefault(run.history.experiment.name, []).append(run)
    return [groups[name] for name in sorted(groups)]


def _by_status(runs: Sequence[StudyRun]) -> dict[str, int]:
    done = sum(1 for r in runs if r.history.status == "completed")
    failed = sum(1 for r in runs if r.history.status == "failed")
    return {"completed": done, "failed": failed, "other": len(runs) - done - failed}


def study_section(
    name: str,
    runs: Sequence[StudyRun],
    factors: dict[str, list[Any]],
    study: StudyFile | None,
    source: str | None,
) -> Section:
    """What every study has: its plan, its runs by status, calls and tokens, the cells and
    (collapsed) every run with the command that writes its own page."""
    rows = [run_row(run.history) for run in runs]
    experiments = sorted({row["experiment"] for row in rows if row["experiment"]})
    statuses = _by_status(runs)
    planned: int | str = "see the study file"
    if study is not None:
        planned = math.prod(len(values) for values in study.factors.values()) * study.replicates
    factor_words = "; ".join(
        f"{k}: {', '.join(value_text(v) for v in vs)}" for k, vs in factors.items()
    )
    pairs: list[tuple[str, Any]] = [
        ("study", name),
        ("experiment", ", ".join(experiments) or "unknown"),
        ("study file", source or "not given: the factors are read from the runs' labels"),
        ("factors", factor_words or "none (one cell)"),
        ("replicates", study.replicates if study is not None else "see the study file"),
        ("runs planned", planned),
        ("runs in the ledger", len(runs)),
        ("completed / failed / other", " / ".join(str(n) for n in statuses.values())),
        ("model calls", sum(row.get("calls") or 0 for row in rows)),
        ("input tokens", f"{sum(row.get('input_tokens') or 0 for row in rows):,}"),
        ("output tokens", f"{sum(row.get('output_tokens') or 0 for row in rows):,}"),
        ("reference", _reference_words(study)),
        (
            "confounds",
            " ".join(study.confounds) if study is not None and study.confounds else "none declared",
        ),
    ]
    cells: dict[int, list[StudyRun]] = {}
    for run in runs:
        cells.setdefault(run.cell, []).append(run)
    cell_rows: list[tuple[Cell, ...]] = []
    for cell, members in cells.items():
        counts = _by_status(members)
        cell_rows.append((cell, members[0].condition, len(members), *counts.values()))
    cell_table = table(["cell", "factor values", "runs", "completed", "failed", "other"], cell_rows)
    run_rows = [
        (
            run.history.run_id,
            run.cell,
            *(value_text(v) for v in run.factors.values()),
            row["status"],
            row.get("outcome"),
            code(f"maai report {run.history.run_id}"),
        )
        for run, row in zip(runs, rows, strict=True)
    ]
    columns = ["run id", "cell", *factors, "status", "outcome", "its own page"]
    body = join(
        [
            facts(pairs),
            cell_table,
            details(f"Every run ({len(runs)})", table(columns, run_rows)),
        ]
    )
    if not runs:
        body = join([body, paragraph("No run of this study is in the ledger yet.", "no-data")])
    if study is not None and study.confounds:
        # First thing on the page: every result below is read in its light.
        said = "Confounded by design (the study file's confounds): " + " ".join(study.confounds)
        body = join([paragraph(said, "flag"), body])
    return Section("The study", body)


def _reference_words(study: StudyFile | None) -> str:
    if study is None:
        return "none: give the study file (not its name) to compare with its reference"
    if study.reference is None:
        return "none in the study file"
    shown = "; ".join(
        f"{statistic}: " + ", ".join(f"{k} {p:g}" for k, p in distribution.items())
        for statistic, distribution in study.reference.distributions.items()
    )
    return f"{shown} (source: {study.reference.source or 'not given'})"
