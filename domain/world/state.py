"""The world's run state and its reducer ``evolve`` (pure; docs/world.md §2–§5)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from maai.domain.core import Core, OnCore, evolve_core
from maai.domain.events import Event, RunStarted
from maai.domain.world.config import WorldConfig, recorded_config
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    MemoriesScored,
    MemoryItem,
    OrderDrawn,
    OutcomeComputed,
    PlanChanged,
    RoundStarted,
    TickClosed,
    WorldEnded,
)


@dataclass(frozen=True, slots=True)
class State(OnCore):
    core: Core = field(default_factory=Core)
    config: WorldConfig | None = None
    tick: int = 0  # the tick being played: the number of closed ticks
    positions: dict[str, str] = field(default_factory=dict)
    plans: dict[str, tuple[PlanChanged, ...]] = field(default_factory=dict)  # current first
    plan_changes: dict[str, int] = field(default_factory=dict)  # per agent, for the index
    actions: dict[int, tuple[ActionResolved, ...]] = field(default_factory=dict)  # by tick
    orders: dict[int, OrderDrawn] = field(default_factory=dict)
    memories: dict[str, tuple[MemoryItem, ...]] = field(default_factory=dict)
    rounds: dict[int, RoundStarted] = field(default_factory=dict)
    contributions: dict[int, dict[str, ContributionRecorded]] = field(default_factory=dict)
    outcomes: dict[int, OutcomeComputed] = field(default_factory=dict)
    announcements: dict[int, AnnouncementChecked] = field(default_factory=dict)
    ended: WorldEnded | None = None

    def plan_of(self, agent: str) -> PlanChanged | None:
        stack = self.plans.get(agent, ())
        return stack[0] if stack else None

    def present(self, location: str) -> list[str]:
        """Who is at ``location`` now, in the world file's order."""
        assert self.config is not None
        return [a for a in self.config.names if self.positions.get(a) == location]

    @property
    def round(self) -> int | None:
        """The game round in play (started, not yet announced), if any."""
        open_rounds = [r for r in self.rounds if r not in self.announcements]
        return max(open_rounds) if open_rounds else None


def initial_state() -> State:
    return State()


def evolve(state: State, event: Event) -> State:
    core, is_domain = evolve_core(state.core, event)
    state = replace(state, core=core)
    if isinstance(event, RunStarted):
        config = recorded_config(event.config)
        positions = {a.name: a.start for a in config.world.agents}
        return replace(state, config=config, positions=positions)
    if not is_domain:
        return state
    if isinstance(event, ActionResolved):
        state = replace(
            state,
            actions={
                **state.actions,
                event.tick: (*state.actions.get(event.tick, ()), event),
            },
        )
        if event.kind == "move" and event.outcome == "applied" and event.to is not None:
            state = replace(state, positions={**state.positions, event.agent: event.to})
        return state
    if isinstance(event, PlanChanged):
        return _plan(state, event)
    if isinstance(event, MemoriesScored):
        held = state.memories.get(event.agent, ())
        return replace(state, memories={**state.memories, event.agent: (*held, *event.memories)})
    if isinstance(event, OrderDrawn):
        return replace(state, orders={**state.orders, event.tick: event})
    if isinstance(event, RoundStarted):
        return replace(state, rounds={**state.rounds, event.round: event})
    if isinstance(event, ContributionRecorded):
        held_round = state.contributions.get(event.round, {})
        return replace(
            state,
            contributions={
                **state.contributions,
                event.round: {**held_round, event.player: event},
            },
        )
    if isinstance(event, OutcomeComputed):
        return replace(state, outcomes={**state.outcomes, event.round: event})
    if isinstance(event, AnnouncementChecked):
        return replace(state, announcements={**state.announcements, event.round: event})
    if isinstance(event, TickClosed):
        return replace(state, tick=event.tick + 1)
    if isinstance(event, WorldEnded):
        return replace(state, ended=event)
    return state


def _plan(state: State, event: PlanChanged) -> State:
    queue = requeue(state.plans.get(event.agent, ()), event)
    return replace(
        state,
        plans={**state.plans, event.agent: queue},
        plan_changes={**state.plan_changes, event.agent: event.index + 1},
    )


def requeue(queue: tuple[PlanChanged, ...], event: PlanChanged) -> tuple[PlanChanged, ...]:
    """An agent's plan queue (current first) after ``event`` (docs/world.md §4)."""
    if event.status in ("set", "postponed"):
        place = event.place
        if place is None:  # recorded before queues: a set plan went last, a postponed one first
            place = len(queue) if event.status == "set" else 0
        return (*queue[:place], event, *queue[place:])
    if event.status == "promoted":  # the next plan, current from now on: its ticks count anew
        return (event, *queue[1:])
    return queue[1:]  # the current plan ended
