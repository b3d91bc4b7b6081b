"""The Frohlich experiment's read models: agent log, transcript, tables, vote audit, leak
audit, protocol audit, the sections of the run and study reports and progress lines, as
``VIEWS`` (``maai.domain.experiment.ExperimentViews``)."""

from __future__ import annotations

from typing import Any

from maai.domain.experiment import VoteOutcome
from maai.projections.history import History
from maai.projections.views import Views, lazy


class FrohlichViews(Views):
    """The read models in the modules ``Views`` expects, and the votes."""

    audit_votes = lazy("votes:vote_audit")
    describe_vote = lazy("votes:describe_value")

    def vote_problems(self, history: History) -> list[str]:
        """Where the recorded tallies, consensus or poll outcomes disagree with a recount of
        the ballots and answers (``protocol_reference``, sharing no code with the domain)."""
        from maai.projections.frohlich.protocol_base import Audit
        from maai.projections.frohlich.protocol_reference import reference_votes

        if history.config is None:
            return ["the run's config cannot be read"]
        found = reference_votes(Audit(history, history.config))
        return [f"seq {v.seq}: {v.detail}" if v.seq is not None else v.detail for v in found]

    def vote_outcome(self, report: dict[str, Any]) -> VoteOutcome:
        outcome = report["outcome"]
        if outcome is None:
            return VoteOutcome(ended=False, agreement=None, rounds_used=None)
        agreement = outcome["agreement"]
        return VoteOutcome(
            ended=True,
            agreement=None if agreement is None else agreement["text"],
            rounds_used=outcome["rounds_used"],
        )


VIEWS = FrohlichViews()
