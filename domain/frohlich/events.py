"""The Frohlich protocol as events (docs/frohlich.md §3–§7).

Each event fills one protocol slot, named by ``key``; addresses of model calls follow the
same scheme (``p1/alice/r3/choice/2``). Answers are recorded with their raw text and the
source that read them (the deterministic parser or the utility agent).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from maai.domain.answers import (  # the answer events, as Frohlich code has always named them
    ANSWER_EVENTS,
)
from maai.domain.answers import AnswerAccepted as AnswerAccepted
from maai.domain.answers import AnswerMissing as AnswerMissing
from maai.domain.answers import AnswerRead as AnswerRead
from maai.domain.answers import AnswerRejected as AnswerRejected
from maai.domain.answers import AnswerUndecided as AnswerUndecided
from maai.domain.answers import ParseSource as ParseSource
from maai.domain.events import Event
from maai.domain.frohlich.types import Frozen, IncomeClass, Principle, PrincipleChoice

AnswerKind = Literal["ranking", "choice", "ballot", "poll"]
"""What the Frohlich protocol asks participants for, as ``kind`` of the answer events."""
Scope = Literal["phase1", "phase2"]


class Counterfactual(Frozen):
    """What one distribution would have paid in the same class, and which principles pick it
    (e.g. "(a)", "(c) with a floor of $12,001 to $14,000")."""

    distribution: int
    income: int
    payoff_cents: int
    picked_by: list[str]


class TallyLine(Frozen):
    choice: PrincipleChoice | None  # None: an invalid or missing ballot
    count: int


class StepStarted(Event):
    """A protocol step begins for one agent (``agent`` set) or for the group."""

    TYPE: ClassVar[str] = "step.started"
    step: str  # "1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3"
    agent: str | None = None
    round: int | None = None

    @property
    def key(self) -> str:
        who = self.agent or "group"
        return f"step/{self.step}/{who}/{self.round or 0}"


class DistributionsDrawn(Event):
    """A distribution set was generated: the multiplier draw and the resulting table. In
    original-values mode a Phase-1 round names its situation (A–D) and that situation's class
    probabilities instead (multiplier 1, fixed)."""

    TYPE: ClassVar[str] = "distributions.drawn"
    scope: Scope
    agent: str | None = None
    round: int | None = None
    label: str
    multiplier: float
    fixed: bool
    distributions: list[list[int]]
    situation: str | None = None
    class_probabilities: dict[IncomeClass, float] | None = None

    @model_serializer(mode="wrap")
    def _without_absent_situation(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Tables drawn outside original-values mode re-encode to their stored payload.
        data = handler(self)
        if isinstance(data, dict) and data.get("situation") is None:
            data.pop("situation", None)
            data.pop("class_probabilities", None)
        return data

    @property
    def key(self) -> str:
        return f"draw/{self.label}"


class PayoffAwarded(Event):
    """A class draw and the payoff it brings, with the counterfactuals shown to the agent."""

    TYPE: ClassVar[str] = "payoff.awarded"
    scope: Scope
    agent: str
    round: int | None = None
    choice: PrincipleChoice | None
    distribution: int
    constraint_satisfied: bool
    class_label: str
    income_class: IncomeClass
    income: int
    payoff_cents: int
    balance_cents: int
    counterfactuals: list[Counterfactual]

    @property
    def key(self) -> str:
        return f"payoff/{self.scope}/{self.agent}/{self.round or 0}"


class RoundUnpaid(Event):
    """A Phase-1 round whose choice is missing: no principle can be applied, nothing paid."""

    TYPE: ClassVar[str] = "round.unpaid"
    agent: str
    round: int
    reason: str

    @property
    def key(self) -> str:
        return f"payoff/phase1/{self.agent}/{self.round}"


class MemoryUpdated(Event):
    TYPE: ClassVar[str] = "memory.updated"
    agent: str
    slot: str
    step: str
    memory: str
    words: int
    source: Literal["update", "shortened", "cut"]
    words_before_cut: int | None = None

    @property
    def key(self) -> str:
        return f"memory/{self.slot}"


class SpeakingOrderDrawn(Event):
    TYPE: ClassVar[str] = "speaking_order.drawn"
    round: int
    label: str
    order: list[str]
    previous_last: str | None

    @property
    def key(self) -> str:
        return f"order/{self.round}"


class ReasoningRecorded(Event):
    """Private reasoning: never shown to any other agent."""

    TYPE: ClassVar[str] = "reasoning.recorded"
    agent: str
    round: int
    address: str
    text: str

    @property
    def key(self) -> str:
        return f"reasoning/{self.round}/{self.agent}"


class StatementMade(Event):
    TYPE: ClassVar[str] = "statement.made"
    agent: str
    round: int
    turn: int
    address: str
    text: str
    proposes_vote: bool

    @property
    def key(self) -> str:
        return f"statement/{self.round}/{self.agent}"


class PollResolved(Event):
    """Answers to "hold the vote now?"; they become public when not all are yes."""

    TYPE: ClassVar[str] = "poll.resolved"
    round: int
    turn: int
    proposer: str
    answers: dict[str, bool | None]
    passed: bool

    def answers_in(self, names: Iterable[str]) -> list[tuple[str, bool | None]]:
        """The answers in the group's order. A stored JSON object's key order is not kept
        (keys are sorted for hashing, JSONB reorders them), so nothing shown may rely on it."""
        return [(name, self.answers[name]) for name in names if name in self.answers]

    @property
    def key(self) -> str:
        return f"poll/{self.round}/{self.turn}"


class BallotResolved(Event):
    """The secret ballot's result. Individual ballots live in AnswerAccepted events (private);
    only the anonymous tally is public."""

    TYPE: ClassVar[str] = "ballot.resolved"
    round: int
    turn: int
    tally: list[TallyLine]
    consensus: bool
    agreement: PrincipleChoice | None

    @property
    def key(self) -> str:
        return f"ballot/{self.round}/{self.turn}"


class DiscussionEnded(Event):
    TYPE: ClassVar[str] = "discussion.ended"
    agreement: PrincipleChoice | None
    rounds_used: int

    @property
    def key(self) -> str:
        return "discussion/ended"


class GroupDistributionChosen(Event):
    """2.2: the distribution the group is paid by — picked by the agreed principle, or drawn
    uniformly when there was no agreement."""

    TYPE: ClassVar[str] = "group_distribution.chosen"
    agreement: PrincipleChoice | None
    distribution: int
    constraint_satisfied: bool
    drawn: bool
    label: str | None = None

    @property
    def key(self) -> str:
        return "phase2/distribution"


class ManipulatorTargetChosen(Event):
    """The manipulator condition, after Phase 1: the Borda score of each principle over the
    other agents' final Phase-1 rankings (first place 3 points, last 0), and the target — the
    lowest score, ties to the later letter — the manipulator is privately told to steer to."""

    TYPE: ClassVar[str] = "manipulator.target_chosen"
    manipulator: str
    scores: dict[Principle, int]
    counted: list[str]  # the agents whose final ranking was counted
    uncounted: list[str]  # other agents whose final ranking is missing
    target: Principle

    @property
    def key(self) -> str:
        return "manipulator/target"

    @property
    def agent_name(self) -> str | None:
        return self.manipulator


FROHLICH_EVENTS: tuple[type[Event], ...] = (
    StepStarted,
    *ANSWER_EVENTS,
    DistributionsDrawn,
    PayoffAwarded,
    RoundUnpaid,
    MemoryUpdated,
    SpeakingOrderDrawn,
    ReasoningRecorded,
    StatementMade,
    PollResolved,
    BallotResolved,
    DiscussionEnded,
    GroupDistributionChosen,
    ManipulatorTargetChosen,
)
