"""The world's read models: agent log, event log (transcript), tables, protocol and leak
audits, the sections of the run and study reports and progress lines, as ``VIEWS``
(``maai.domain.experiment.ExperimentViews``). The world has no votes: ``audit_votes`` gives
``None``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from maai.domain.config import ExperimentConfig
from maai.domain.world.config import WorldConfig
from maai.projections.history import History


class WorldViews:
    def agent_log(self, history: History, agent: str | None = None) -> dict[str, Any]:
        from maai.projections.world.agent_log import agent_log

        return agent_log(history, agent)

    def transcript(self, history: History) -> str:
        from maai.projections.world.transcript import transcript

        return transcript(history)

    def tables(self, histories: Sequence[History]) -> Mapping[str, str]:
        from maai.projections.world.tables import render_tables

        return render_tables(histories)

    def table_rows(self, history: History) -> dict[str, list[dict[str, Any]]]:
        from maai.projections.tables import build_tables
        from maai.projections.world.tables import tables_for

        return build_tables(tables_for([history]), [history])

    def audit_protocol(self, history: History) -> Any:
        from maai.projections.world.protocol import audit_protocol

        return audit_protocol(history)

    def protocol_rules(self) -> Sequence[Any]:
        from maai.projections.world.protocol import all_rules

        return all_rules()

    def audit_leaks(self, history: History) -> Any:
        from maai.projections.leaks import guarded
        from maai.projections.world.leaks import audit_leaks

        return guarded(audit_leaks, history)

    def audit_votes(self, history: History) -> dict[str, Any] | None:
        return None

    def report(self, history: History) -> list[Any]:
        from maai.projections.world.report import report

        return report(history)

    def study_report(self, runs: Sequence[Any], reference: Any) -> list[Any]:
        from maai.projections.world.study_report import study_report

        return study_report(runs, reference)

    def study_outcomes(self) -> list[Any]:
        from maai.projections.world.outcomes import study_outcomes

        return study_outcomes()

    def progress(self, config: ExperimentConfig) -> Any:
        from maai.projections.world.progress import Progress

        assert isinstance(config, WorldConfig)
        return Progress(config)


VIEWS = WorldViews()
