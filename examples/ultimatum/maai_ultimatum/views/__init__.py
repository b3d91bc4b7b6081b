"""The game's read models, as ``VIEWS`` (``maai.domain.experiment.ExperimentViews``): agent
log, transcript, tables, protocol and leak audits and progress lines, each in the module
``maai.projections.views.Views`` expects it in. The game has no votes and no report sections
of its own."""

from __future__ import annotations

from maai.projections.views import Views


class UltimatumViews(Views):
    pass


VIEWS = UltimatumViews()
