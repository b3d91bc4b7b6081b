"""The world's read models, as ``VIEWS`` (``maai.domain.experiment.ExperimentViews``): agent
log, event log (transcript), tables, protocol and leak audits, the sections of the run and
study reports and progress lines, each in the module ``Views`` expects it in. The world has
no votes."""

from __future__ import annotations

from maai.projections.views import Views


class WorldViews(Views):
    table_specs = "tables:tables_for"  # the columns depend on the runs' worlds


VIEWS = WorldViews()
