"""What the collaboration protocol audit is made of: rules, their violations, and the
indexes of a history that several rules share. The rules (``audit_*.py``) recompute what
they check with their own small code, sharing nothing with ``domain/collaboration/rules.py``
or ``protocol.py``: a bug there shows up here."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from maai.domain.answers import AnswerMissing
from maai.domain.calls import ModelRequest
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import BeliefStated, MessageSent
from maai.domain.config import UTILITY
from maai.projections.audit import Rule as Rule
from maai.projections.audit import Rules
from maai.projections.audit import Violation as Violation
from maai.projections.collaboration.calls import site_of
from maai.projections.history import Entry, History


@dataclass(frozen=True)
class Prompt:
    """A participant's recorded request; ``kind`` initial, turn, update or decision (None:
    an address the protocol does not have), ``step`` 0 / k / None."""

    entry: Entry
    request: ModelRequest
    kind: str | None
    step: int | None
    attempt: int | None

    @property
    def agent(self) -> str:
        return self.request.agent

    @property
    def text(self) -> str:
        return f"{self.request.system}\n{self.request.input}"


class Audit:
    """A history with its (readable) config and shared indexes."""

    def __init__(self, history: History, config: CollaborationConfig) -> None:
        self.history = history
        self.config = config

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.config.agents]

    @property
    def baseline(self) -> bool:
        return self.config.baseline is not None

    @property
    def last_step(self) -> int:
        """The last turn, 2n + 1 (agent 1's update after the last message)."""
        return 2 * self.config.exchanges + 1

    def writer(self, index_or_step: int) -> str:
        """Who writes message ``i`` or takes turn ``k``: agent 1 odd, agent 2 even."""
        first, second = self.names[0], self.names[-1]
        return first if index_or_step % 2 == 1 else second

    def partner(self, agent: str) -> str | None:
        others = [n for n in self.names if n != agent]
        return others[0] if others and not self.baseline else None

    @cached_property
    def prompts(self) -> list[Prompt]:
        out = []
        # Whole, texts included (a game has at most a few dozen prompts; several rules look
        # across them).
        for entry, event in self.history.requests():
            request = event.request
            if request.agent == UTILITY:
                continue
            site = site_of(request.address)
            kind = site.kind
            if kind == "turn" and site.step == self.last_step:
                kind = "update"
            out.append(Prompt(entry, request, kind, site.step, site.attempt))
        return out

    @cached_property
    def beliefs(self) -> list[tuple[Entry, BeliefStated]]:
        return self.history.of(BeliefStated)

    @cached_property
    def messages(self) -> list[tuple[Entry, MessageSent]]:
        return self.history.of(MessageSent)

    @cached_property
    def missing(self) -> list[tuple[Entry, AnswerMissing]]:
        return self.history.of(AnswerMissing)

    def latest(self, agent: str, before: int) -> tuple[int | None, int | None, int | None]:
        """The agent's initial belief, latest belief and latest prediction recorded before
        seq ``before``."""
        initial = latest = prediction = None
        for entry, event in self.beliefs:
            if entry.seq < before and event.agent == agent:
                if event.step == 0:
                    initial = event.belief
                latest = event.belief
                if event.prediction is not None:
                    prediction = event.prediction
        return initial, latest, prediction


RULES = Rules()
rule = RULES.rule
