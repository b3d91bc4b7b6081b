"""The world's outcomes compared between a study's conditions (``projections/comparison.py``;
docs/studies.md, "Comparisons"): the public-goods game's mean contribution per run."""

from __future__ import annotations

from maai.domain.world.config import WorldConfig
from maai.projections.comparison import Outcome
from maai.projections.history import History
from maai.projections.world.game import game_rounds


def _mean_share(history: History) -> float | None:
    """The run's players' mean contribution as a share of the endowment over every round;
    a missing contribution left out (as in the report's contributions section)."""
    config = history.config
    if history.experiment is None or not isinstance(config, WorldConfig) or not config.game:
        return None
    rows = history.experiment.views().table_rows(history)
    shares = [
        p.share
        for r in game_rounds(history, rows)
        for p in r.players
        if p.player in config.players and p.share is not None
    ]
    return sum(shares) / len(shares) if shares else None


def study_outcomes() -> list[Outcome]:
    return [
        Outcome(
            "contribution",
            "mean",
            "mean contribution (share of the endowment)",
            _mean_share,
            counted="the runs that play the public-goods game and recorded a contribution",
        )
    ]
