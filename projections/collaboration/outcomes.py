"""The collaboration game's outcomes compared between a study's conditions
(``projections/comparison.py``; docs/studies.md, "Comparisons")."""

from __future__ import annotations

from typing import Any

from maai.projections.comparison import Outcome
from maai.projections.history import History


def _rows(history: History) -> dict[str, list[dict[str, Any]]]:
    if history.experiment is None:
        return {}
    return history.experiment.views().table_rows(history)


def _both_collaborated(history: History) -> bool | None:
    """Both agents chose a collaborative option; ``None`` until both decided."""
    decisions = _rows(history).get("decisions", [])
    strategies = [d["strategy"] for d in decisions]
    if not strategies or any(s is None for s in strategies):
        return None
    return all(s == "collaborative" for s in strategies)


def _mismatch(history: History) -> bool | None:
    outcome = (_rows(history).get("outcome") or [{}])[0]
    mismatch = outcome.get("mismatch")
    return None if mismatch is None else bool(mismatch)


def study_outcomes() -> list[Outcome]:
    return [
        Outcome(
            "joint project",
            "rate",
            "share of the pairs that both collaborated",
            _both_collaborated,
            counted="the runs where both agents decided; yes: both chose a collaborative option",
        ),
        Outcome(
            "mismatch",
            "rate",
            "share of the pairs whose strategies differ",
            _mismatch,
            counted="the runs where both agents decided",
        ),
    ]
