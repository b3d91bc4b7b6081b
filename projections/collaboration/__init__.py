"""The collaboration game's read models, as ``VIEWS`` (``maai.domain.experiment.
ExperimentViews``): agent log, transcript, tables, protocol and leak audits, the sections of
the run and study reports and progress lines, each in the module ``Views`` expects it in.
The game has no votes."""

from __future__ import annotations

from maai.projections.views import views_of

VIEWS = views_of(__name__)
