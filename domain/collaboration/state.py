"""The collaboration game's run state and its reducer ``evolve`` (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.core import Core, OnCore, evolve_core
from maai.domain.events import Event, RunStarted


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
    core, is_domain = evolve_core(state.core, event)
    state = replace(state, core=core)
    if isinstance(event, RunStarted):
        config = CollaborationConfig.model_validate(event.config)
        return replace(state, config=config, beliefs={a.name: () for a in config.agents})
    if not is_domain:
        return state
    if isinstance(event, BeliefStated):
        beliefs = dict(state.beliefs)
        beliefs[event.agent] = (*beliefs.get(event.agent, ()), event)
        return replace(state, beliefs=beliefs)
    if isinstance(event, MessageSent):
        return replace(state, messages=(*state.messages, event))
    if isinstance(event, DecisionMade):
        return replace(state, decisions={**state.decisions, event.agent: event})
    if isinstance(event, PartnerDrawn):
        return replace(state, partner=event)
    if isinstance(event, PointsAwarded):
        return replace(state, points=event)
    if isinstance(event, GameEnded):
        return replace(state, ended=event)
    return state
