"""The world as events (docs/world.md §2–§5). Each fills one protocol slot, named by ``key``;
answers are read through the generic answer events (``maai.domain.answers``) and then
recorded here as the facts they establish."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from maai.domain.answers import ANSWER_EVENTS
from maai.domain.events import Event

ActionKind = Literal["move", "speak", "wait", "done", "failed", "contribute", "announce", "missing"]
Outcome = Literal["applied", "refused", "missing"]


class OrderDrawn(Event):
    """The order in which the actions of ``tick`` are applied, drawn from the stream
    ``label`` (§2)."""

    TYPE: ClassVar[str] = "world.order_drawn"
    tick: int
    label: str
    order: list[str]

    @property
    def key(self) -> str:
        return f"order/{self.tick}"


class ActionResolved(Event):
    """One agent's action in ``tick``, applied or refused by code against the world as
    already changed by earlier actions of the tick (§2, §3), or missing (no readable action
    within the attempts). ``witnesses`` are the agents present where it happened (for a
    move: where it left and where it arrived), computed when it was applied; a refused or
    missing action is known to its actor alone, who is told ``reason`` next tick."""

    TYPE: ClassVar[str] = "world.action"
    tick: int
    position: int  # its place in the drawn order
    agent: str
    kind: ActionKind
    outcome: Outcome
    location: str  # where the actor was when it acted
    to: str | None = None  # a move's destination, or whom speech was addressed to
    text: str | None = None
    amount: int | None = None
    payoffs: dict[str, float] | None = None
    reason: str | None = None
    description: str
    witnesses: list[str]

    @property
    def key(self) -> str:
        return f"action/{self.tick}/{self.agent}"


PlanStatus = Literal["set", "postponed", "promoted", "cancelled", "done", "failed", "expired"]


class PlanChanged(Event):
    """A change to an agent's plans (§4). Its plans form a queue, the current plan first: a
    new plan is queued (``set``: at the end, so the first of a planning answer's plans is
    current when there was none; ``postponed``: before the current plan, which resumes after
    the new ones), the current plan ends (``done`` or ``failed`` as the agent said,
    ``cancelled`` by its reaction, ``expired`` at its max ticks, enforced by code), and the
    next plan in the queue becomes current (``promoted``: its max ticks count from here).

    ``place`` (a new plan) is its place in the queue once added (0: current); ``plan`` is
    the plan's number, the ``index`` of the change that queued it, so that the changes of one
    plan can be told apart from another's with the same words. Before plan lists
    (``max_plans: null``, and runs recorded then) there is neither, and no promotion: a set
    plan went last and a postponed one first. Both are left out of the JSON when absent, so
    those runs' events encode as they were stored."""

    TYPE: ClassVar[str] = "world.plan_changed"
    tick: int
    agent: str
    index: int  # per agent, 0, 1, 2 … in order
    status: PlanStatus
    location: str
    description: str
    stop_condition: str = ""
    max_ticks: int
    place: int | None = None
    plan: int | None = None

    @model_serializer(mode="wrap")
    def _without_absent_queue_fields(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in ("place", "plan"):
                if data.get(name) is None:
                    data.pop(name, None)
        return data

    @property
    def key(self) -> str:
        return f"plan/{self.agent}/{self.index}"


class MemoryItem(BaseModel):
    """One memory inside ``MemoriesScored``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str
    created_tick: int
    importance: int | None  # 1–10 as the model scored it; None when no readable score came


class MemoriesScored(Event):
    """What an agent observed in the tick before ``tick``, as memories with the importance
    it gave each in one call (§4, stage 2)."""

    TYPE: ClassVar[str] = "world.memories"
    tick: int
    agent: str
    memories: list[MemoryItem]

    @property
    def key(self) -> str:
        return f"memories/{self.tick}/{self.agent}"


class RoundStarted(Event):
    """A round of the public-goods game begins; ``order`` is its turn order (configured, or
    drawn from ``label``)."""

    TYPE: ClassVar[str] = "pgg.round_started"
    round: int
    tick: int
    order: list[str]
    label: str | None = None

    @property
    def key(self) -> str:
        return f"round/{self.round}"


class ContributionRecorded(Event):
    """A player's contribution in ``round``: a whole number 0..endowment, or missing (no
    valid contribution within the attempts; counted as 0 and flagged)."""

    TYPE: ClassVar[str] = "pgg.contribution"
    round: int
    tick: int
    player: str
    amount: int | None
    endowment: int

    @property
    def key(self) -> str:
        return f"contribution/{self.round}/{self.player}"


class OutcomeComputed(Event):
    """The round's outcome, computed by code (§5): payoff_i = e_i − c_i + m·Σc/N, rounded
    half-even to 2 decimals; a missing contribution counts as 0."""

    TYPE: ClassVar[str] = "pgg.outcome"
    round: int
    contributions: dict[str, int]
    missing: list[str]
    total: int
    multiplier: float
    share: float
    payoffs: dict[str, float]

    @property
    def key(self) -> str:
        return f"outcome/{self.round}"


class AnnouncementChecked(Event):
    """The moderator's announcement compared with the computed outcome. A wrong announcement
    is recorded as such; the computed outcome stands."""

    TYPE: ClassVar[str] = "pgg.announcement"
    round: int
    tick: int
    announced: dict[str, float]
    computed: dict[str, float]
    matches: bool
    differences: list[str]

    @property
    def key(self) -> str:
        return f"announcement/{self.round}"


class TickClosed(Event):
    """Every action of ``tick`` is resolved; the next tick may begin."""

    TYPE: ClassVar[str] = "world.tick_closed"
    tick: int

    @property
    def key(self) -> str:
        return f"tick/{self.tick}"


class WorldEnded(Event):
    TYPE: ClassVar[str] = "world.ended"
    tick: int
    reason: Literal["tick limit", "game over"]

    @property
    def key(self) -> str:
        return "world/ended"


WORLD_EVENTS: tuple[type[Event], ...] = (
    *ANSWER_EVENTS,
    OrderDrawn,
    ActionResolved,
    PlanChanged,
    MemoriesScored,
    RoundStarted,
    ContributionRecorded,
    OutcomeComputed,
    AnnouncementChecked,
    TickClosed,
    WorldEnded,
)
