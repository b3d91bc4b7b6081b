"""The game's read models, as ``VIEWS`` (``maai.domain.experiment.ExperimentViews``): each
is one line naming the function that builds it (``maai.projections.views.lazy``); the
game has no votes, no report sections of its own, which the defaults say."""

from __future__ import annotations

from maai.projections.views import Views, lazy


class UltimatumViews(Views):
    agent_log = lazy("log:agent_log")
    transcript = lazy("log:transcript")
    tables = lazy("tables:render")
    audit_protocol = lazy("audit:audit_protocol")
    protocol_rules = lazy("audit:all_rules")
    audit_leaks = lazy("audit:audit_leaks")
    progress = lazy("log:Progress")


VIEWS = UltimatumViews()
