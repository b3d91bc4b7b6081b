"""The game's read models, as ``VIEWS`` (``maai.domain.experiment.ExperimentViews``): agent
log, transcript, tables, protocol and leak audits and progress lines, each in the module
``maai.projections.views.Views`` expects it in, and its sections of ``maai report`` and
``maai view`` (``report.py``: the game, the points). The game has no votes."""

from __future__ import annotations

from maai.projections.views import Views


class UltimatumViews(Views):
    pass


VIEWS = UltimatumViews()
