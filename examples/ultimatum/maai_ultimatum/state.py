"""The game's run state and its reducer (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field

from maai.domain.core import Core, OnCore, evolve_on_core
from maai.domain.events import Event, RunStarted
from maai.domain.updates import Changes, updater

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade


@dataclass(frozen=True, slots=True)
class State(OnCore):
    core: Core = field(default_factory=Core)
    config: UltimatumConfig | None = None
    offer: OfferMade | None = None
    response: ResponseMade | None = None
    payoffs: PayoffsSet | None = None


def initial_state() -> State:
    return State()


def evolve(state: State, event: Event) -> State:
    new: State = evolve_on_core(state, event, _update, _changes)
    return new


def _changes(state: State, event: Event, is_domain: bool) -> Changes:
    if isinstance(event, RunStarted):
        return {"config": UltimatumConfig.model_validate(event.config)}
    if isinstance(event, OfferMade):
        return {"offer": event}
    if isinstance(event, ResponseMade):
        return {"response": event}
    if isinstance(event, PayoffsSet):
        return {"payoffs": event}
    return {}


_update = updater(State)
