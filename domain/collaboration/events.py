"""The collaboration game as events (docs/collaboration.md §2). Each fills one protocol
slot, named by ``key``; answers are read through the generic answer events
(``maai.domain.answers``) and then recorded here as the facts they establish."""

from __future__ import annotations

from typing import ClassVar, Literal

from maai.domain.answers import ANSWER_EVENTS
from maai.domain.events import Event

Strategy = Literal["collaborative", "individual"]


class BeliefStated(Event):
    """An agent's belief (0–100: how likely the collaboration succeeds) and, from its first
    reply on, its prediction of the partner's current belief. Private to the agent.

    ``step`` orders the updates: 0 is the initial belief; ``k`` (2 … 2n+1) the update made
    at turn ``k``, after reading message ``k − 1``."""

    TYPE: ClassVar[str] = "belief.stated"
    agent: str
    step: int
    belief: int
    prediction: int | None = None
    reasoning: str | None = None

    @property
    def key(self) -> str:
        return f"belief/{self.agent}/{self.step}"


class MessageSent(Event):
    """Message ``index`` (1 … 2n), public to both agents, with the rule breaches code found
    in it. ``text`` is None when no readable answer came within the attempts: the partner is
    told so."""

    TYPE: ClassVar[str] = "message.sent"
    agent: str
    index: int
    text: str | None
    breaches: list[str] = []

    @property
    def key(self) -> str:
        return f"message/{self.index}"


class DecisionMade(Event):
    """An agent's choice among its own options; the strategy is derived from the option by
    code. ``option`` is None when no readable decision came within the attempts."""

    TYPE: ClassVar[str] = "decision.made"
    agent: str
    option: str | None
    strategy: Strategy | None
    reasoning: str | None = None

    @property
    def key(self) -> str:
        return f"decision/{self.agent}"


class PartnerDrawn(Event):
    """The baseline's lottery partner: collaborates with probability ``p``."""

    TYPE: ClassVar[str] = "partner.drawn"
    label: str
    p: float
    draw: float
    collaborates: bool

    @property
    def key(self) -> str:
        return "partner/drawn"


class PointsAwarded(Event):
    """Points by the payoff rule, computed by code; the outcome of a complete game."""

    TYPE: ClassVar[str] = "points.awarded"
    points: dict[str, int]
    strategies: dict[str, Strategy]
    mismatch: bool
    both_collaborative: bool

    @property
    def key(self) -> str:
        return "points"


class GameEnded(Event):
    """The game is over: ``complete`` (points awarded) or ``incomplete`` (a decision is
    missing: no points, the reason says whose)."""

    TYPE: ClassVar[str] = "game.ended"
    outcome: Literal["complete", "incomplete"]
    reason: str | None = None

    @property
    def key(self) -> str:
        return "game/ended"


COLLABORATION_EVENTS: tuple[type[Event], ...] = (
    *ANSWER_EVENTS,
    BeliefStated,
    MessageSent,
    DecisionMade,
    PartnerDrawn,
    PointsAwarded,
    GameEnded,
)
