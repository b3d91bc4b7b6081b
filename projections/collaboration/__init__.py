"""The collaboration game's read models: agent log, transcript, tables, protocol and leak
audits, the sections of the run and study reports and progress lines, as ``VIEWS``
(``maai.domain.experiment.ExperimentViews``). The game has no votes."""

from __future__ import annotations

from maai.projections.views import Views, lazy


class CollaborationViews(Views):
    agent_log = lazy("agent_log:agent_log")
    transcript = lazy("transcript:transcript")
    tables = lazy("tables:render_tables")
    audit_protocol = lazy("protocol:audit_protocol")
    protocol_rules = lazy("protocol:all_rules")
    audit_leaks = lazy("leaks:audit_leaks")
    report = lazy("report:report")
    study_report = lazy("study_report:study_report")
    progress = lazy("progress:Progress")


VIEWS = CollaborationViews()
