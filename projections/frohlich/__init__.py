"""The Frohlich experiment's read models: agent log, transcript, tables, vote audit, leak
audit, protocol audit and progress lines, as ``VIEWS`` (``maai.domain.experiment``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from maai.domain.config import ExperimentConfig
from maai.domain.frohlich.config import FrohlichConfig
from maai.projections.history import History


class FrohlichViews:
    def agent_log(self, history: History, agent: str | None = None) -> dict[str, Any]:
        from maai.projections.frohlich.agent_log import agent_log

        return agent_log(history, agent)

    def transcript(self, history: History) -> str:
        from maai.projections.frohlich.transcript import transcript

        return transcript(history)

    def tables(self, histories: Sequence[History]) -> Mapping[str, str]:
        from maai.projections.frohlich.tables import render_tables

        return render_tables(histories)

    def table_rows(self, history: History) -> dict[str, list[dict[str, Any]]]:
        from maai.projections.frohlich.tables import TABLES
        from maai.projections.tables import build_tables

        return build_tables(TABLES, [history])

    def audit_protocol(self, history: History) -> Any:
        from maai.projections.frohlich.protocol import audit_protocol

        return audit_protocol(history)

    def protocol_rules(self) -> Sequence[Any]:
        from maai.projections.frohlich.protocol import all_rules

        return all_rules()

    def audit_leaks(self, history: History) -> Any:
        from maai.projections.frohlich.leaks import audit_leaks
        from maai.projections.leaks import guarded

        return guarded(audit_leaks, history)

    def audit_votes(self, history: History) -> dict[str, Any] | None:
        from maai.projections.frohlich.votes import vote_audit

        return vote_audit(history)

    def vote_problems(self, history: History) -> list[str]:
        """Where the recorded tallies, consensus or poll outcomes disagree with a recount of
        the ballots and answers (``protocol_reference``, sharing no code with the domain)."""
        from maai.projections.frohlich.protocol_base import Audit
        from maai.projections.frohlich.protocol_reference import reference_votes

        if history.config is None:
            return ["the run's config cannot be read"]
        found = reference_votes(Audit(history, history.config))
        return [f"seq {v.seq}: {v.detail}" if v.seq is not None else v.detail for v in found]

    def describe_vote(self, row: dict[str, Any]) -> str:
        from maai.projections.frohlich.votes import describe_value

        return describe_value(row)

    def report(self, history: History) -> list[Any]:
        from maai.projections.frohlich.report import report

        return report(history)

    def study_report(self, runs: Sequence[Any], reference: Any) -> list[Any]:
        from maai.projections.frohlich.study_report import study_report

        return study_report(runs, reference)

    def study_outcomes(self) -> list[Any]:
        from maai.projections.frohlich.outcomes import study_outcomes

        return study_outcomes()

    def progress(self, config: ExperimentConfig) -> Any:
        from maai.projections.frohlich.progress import Progress

        assert isinstance(config, FrohlichConfig)
        return Progress(config)


VIEWS = FrohlichViews()
