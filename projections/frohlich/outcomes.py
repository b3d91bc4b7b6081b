"""The Frohlich experiment's outcomes compared between a study's conditions
(``projections/comparison.py``; docs/studies.md, "Comparisons")."""

from __future__ import annotations

from maai.projections.comparison import Outcome
from maai.projections.frohlich.report import LETTERS, SHORT_NAMES
from maai.projections.frohlich.study_report import RunResult, run_result
from maai.projections.history import History

_LAST: list[tuple[History, RunResult]] = []
"""The last run read (the three outcomes of a run are asked for one after another), so that
its tables are built once, not three times."""


def _result(history: History) -> RunResult:
    if not _LAST or _LAST[0][0] is not history:
        _LAST[:] = [(history, run_result(history))]
    return _LAST[0][1]


def _agreed(history: History) -> bool | None:
    result = _result(history)
    return (result.agreement is not None) if result.ended else None


def _principle(history: History) -> str | None:
    return _result(history).agreement


def _phase2(history: History) -> float | None:
    return _result(history).phase2


def study_outcomes() -> list[Outcome]:
    return [
        Outcome(
            "agreement",
            "rate",
            "share of the ended discussions that agreed",
            _agreed,
            counted="the runs whose discussion ended; yes: a unanimous secret ballot",
        ),
        Outcome(
            "agreed principle",
            "categories",
            "agreements",
            _principle,
            categories={p: SHORT_NAMES[p] for p in LETTERS},
            counted="the runs whose group agreed",
        ),
        Outcome(
            "Phase-2 payoff",
            "mean",
            "mean payoff per participant ($)",
            _phase2,
            counted="the runs with Phase-2 payments; a run's value is its payments over its "
            "participants",
        ),
    ]
