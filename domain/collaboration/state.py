"""The collaboration game's run state and its reducer ``evolve`` (pure)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.core import Core, OnCore, evolve_on_core, fold_on_core
from maai.domain.events import Event, RunStarted
from maai.domain.updates import Changes, setter, updater


@dataclass(frozen=True, slots=True)
class State(OnCore):
    core: Core = field(default_factory=Core)
    config: CollaborationConfig | None = None
    beliefs: dict[str, tuple[BeliefStated, ...]] = field(default_factory=dict)
    messages: tuple[MessageSent, ...] = ()
    decisions: dict[str, DecisionMade] = field(default_factory=dict)
    partner: PartnerDrawn | None = None
    points: PointsAwarded | None = None
    ended: GameEnded | None = None

    def latest_belief(self, agent: str) -> BeliefStated | None:
        stated = self.beliefs.get(agent, ())
        return stated[-1] if stated else None

    def initial_belief(self, agent: str) -> BeliefStated | None:
        stated = self.beliefs.get(agent, ())
        return stated[0] if stated and stated[0].step == 0 else None

    def latest_prediction(self, agent: str) -> int | None:
        for stated in reversed(self.beliefs.get(agent, ())):
            if stated.prediction is not None:
                return stated.prediction
        return None


def initial_state() -> State:
    return State()


def evolve(state: State, event: Event) -> State:
    new: State = evolve_on_core(state, event, _update_state, _changes)
    return new


def fold(events: Iterable[Event], state: State | None = None) -> State:
    """``evolve`` over ``events``, from ``state`` (else the initial state), which is left
    untouched, without a copy of the state per event (``maai.domain.core.fold_on_core``)."""
    start = initial_state() if state is None else state
    folded: State = fold_on_core(events, start, _update_state, _set_state, _changes)
    return folded


def _changes(state: State, event: Event, is_domain: bool) -> Changes:
    """The fields besides the core that ``event`` changes."""
    if isinstance(event, RunStarted):
        config = CollaborationConfig.model_validate(event.config)
        return {"config": config, "beliefs": {a.name: () for a in config.agents}}
    if not is_domain:
        return {}
    if isinstance(event, BeliefStated):
        beliefs = dict(state.beliefs)
        beliefs[event.agent] = (*beliefs.get(event.agent, ()), event)
        return {"beliefs": beliefs}
    if isinstance(event, MessageSent):
        return {"messages": (*state.messages, event)}
    if isinstance(event, DecisionMade):
        return {"decisions": {**state.decisions, event.agent: event}}
    if isinstance(event, PartnerDrawn):
        return {"partner": event}
    if isinstance(event, PointsAwarded):
        return {"points": event}
    if isinstance(event, GameEnded):
        return {"ended": event}
    return {}


_update_state: Callable[[State, Changes], State] = updater(State)
_set_state: Callable[[State, Changes], None] = setter(State)
