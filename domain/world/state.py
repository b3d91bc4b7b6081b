"""The world's run state and its reducer ``evolve`` (pure; docs/world.md §2–§5).

The keyed parts of the state are persistent maps (``immutables.Map``) and each agent's
memories a ``MemoryStream``: one step costs O(log n) however long the run, never a copy of
every tick, position or memory so far, and leaves the state before it untouched (as the
Frohlich state does)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from immutables import Map

from maai.domain.answers import AnswerMissing, AnswerRead
from maai.domain.core import Core, OnCore, evolve_on_core, fold_on_core
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunStarted,
)
from maai.domain.updates import setter, updater
from maai.domain.walk import Scopes
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


class MemoryStream(Sequence[MemoryItem]):
    """An agent's memories, oldest first, grown one scored batch at a time. Appending a
    batch costs O(1) and leaves the stream before it as it was (a tuple would copy every
    memory so far for each batch: quadratic in the run); reading it costs O(memories), as
    reading a tuple does."""

    __slots__ = ("_before", "_batch", "_length", "_flat", "_derived")

    def __init__(self, batch: Sequence[MemoryItem] = (), before: MemoryStream | None = None):
        self._before = before
        self._batch = tuple(batch)
        self._length = len(self._batch) + (len(before) if before is not None else 0)
        self._flat: tuple[MemoryItem, ...] | None = None  # built on first indexing
        self._derived: dict[Hashable, Any] | None = None  # see ``derived``

    def append(self, batch: Sequence[MemoryItem]) -> MemoryStream:
        return MemoryStream(batch, self) if self._length else MemoryStream(batch)

    @property
    def items(self) -> tuple[MemoryItem, ...]:
        """The last batch appended: one ``MemoriesScored``."""
        return self._batch

    @property
    def derived(self) -> dict[Hashable, Any]:
        """Data derived from the last batch alone (``items``), kept with it by whoever
        derives it (memory retrieval: ``maai.domain.world.memory``). The batch never
        changes, so neither does what is derived from it; a state dropped takes it along."""
        if self._derived is None:
            self._derived = {}
        return self._derived

    def batches(self) -> list[MemoryStream]:
        """The stream's batches, oldest first, each as the stream it ended (``items``,
        ``derived``); O(batches), however many memories they hold."""
        streams = []
        stream: MemoryStream | None = self
        while stream is not None:
            if stream._batch:
                streams.append(stream)
            stream = stream._before
        streams.reverse()
        return streams

    def _batches(self) -> list[tuple[MemoryItem, ...]]:
        return [stream._batch for stream in self.batches()]

    def __iter__(self) -> Iterator[MemoryItem]:
        for batch in self._batches():
            yield from batch

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> MemoryItem: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[MemoryItem, ...]: ...
    def __getitem__(self, index: int | slice) -> MemoryItem | tuple[MemoryItem, ...]:
        if self._flat is None:
            self._flat = tuple(self)
        return self._flat[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MemoryStream | tuple | list):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MemoryStream({list(self)!r})"


NO_MEMORIES = MemoryStream()


@dataclass(frozen=True, slots=True, repr=False)
class State(OnCore):
    core: Core = field(default_factory=Core)
    config: WorldConfig | None = None
    tick: int = 0  # the tick being played: the number of closed ticks
    positions: Map[str, str] = field(default_factory=Map)
    plans: Map[str, tuple[PlanChanged, ...]] = field(default_factory=Map)  # current first
    plan_changes: Map[str, int] = field(default_factory=Map)  # per agent, for the index
    actions: Map[int, tuple[ActionResolved, ...]] = field(default_factory=Map)  # by tick
    orders: Map[int, OrderDrawn] = field(default_factory=Map)
    memories: Map[str, MemoryStream] = field(default_factory=Map)
    rounds: Map[int, RoundStarted] = field(default_factory=Map)
    contributions: Map[int, Map[str, ContributionRecorded]] = field(default_factory=Map)
    outcomes: Map[int, OutcomeComputed] = field(default_factory=Map)
    announcements: Map[int, AnnouncementChecked] = field(default_factory=Map)
    ended: WorldEnded | None = None
    # One token per agent for the memoized walk of its loop in a tick (``domain.walk``,
    # protocol._tick); derived data, so it takes no part in comparing states.
    scopes: Scopes = field(default_factory=Scopes, compare=False, repr=False)
    # Texts rendered from the config alone (an agent's system prompt), by what they are, and
    # what an agent observed of a closed tick (with the actions it was read from): one table
    # from the run's start on, shared by every state after it, which all have its config.
    # Derived data, so it takes no part in comparing states.
    renders: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

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

    def __repr__(self) -> str:
        # Short: the whole state (every memory, action and answer) runs to megabytes, and
        # Python 3.11's asyncio.run writes the repr of the run's result twice when it puts
        # back the SIGINT handler (signal.getsignal -> enum's error message): about 0.3 s at
        # the end of a 20-agent, 30-tick run, for nothing.
        agents = len(self.config.names) if self.config else 0
        return f"State(status={self.status!r}, tick={self.tick}, agents={agents})"


def initial_state() -> State:
    return State()


def evolve(state: State, event: Event) -> State:
    new: State = evolve_on_core(state, event, _replace, _step)
    return new


def fold(events: Iterable[Event], state: State | None = None) -> State:
    """``evolve`` over ``events``, from ``state`` (else the initial state), which is left
    untouched, without a copy of the state per event (``maai.domain.core.fold_on_core``)."""
    start = initial_state() if state is None else state
    folded: State = fold_on_core(events, start, _replace, _set_state, _step)
    return folded


def _step(state: State, event: Event, is_domain: bool) -> dict[str, Any]:
    """The fields besides the core that ``event`` changes."""
    changes: dict[str, Any] = {"scopes": _scopes_after(state, event)}
    if isinstance(event, RunStarted):
        config = recorded_config(event.config)
        changes["config"] = config
        changes["renders"] = {}
        changes["positions"] = Map({a.name: a.start for a in config.world.agents})
    elif is_domain:
        changes.update(_changes(state, event))
    return changes


_replace: Callable[[State, dict[str, Any]], State] = updater(State)
"""``dataclasses.replace(state, **changes)`` without its checks and keyword call: the
engine folds every event through here, and the decisions fold theirs again."""
_set_state: Callable[[State, dict[str, Any]], None] = setter(State)


def _changes(state: State, event: Event) -> dict[str, Any]:
    """The fields a domain event changes, each built in O(log n)."""
    if isinstance(event, ActionResolved):
        held = state.actions.get(event.tick, ())
        # A tick's tuple grows by one action at a time: a copy of at most one tick's actions.
        changes: dict[str, Any] = {"actions": state.actions.set(event.tick, (*held, event))}
        if event.kind == "move" and event.outcome == "applied" and event.to is not None:
            changes["positions"] = state.positions.set(event.agent, event.to)
        return changes
    if isinstance(event, PlanChanged):
        return _plan(state, event)
    if isinstance(event, MemoriesScored):
        held_memories = state.memories.get(event.agent, NO_MEMORIES)
        return {"memories": state.memories.set(event.agent, held_memories.append(event.memories))}
    if isinstance(event, OrderDrawn):
        return {"orders": state.orders.set(event.tick, event)}
    if isinstance(event, RoundStarted):
        return {"rounds": state.rounds.set(event.round, event)}
    if isinstance(event, ContributionRecorded):
        held_round = state.contributions.get(event.round, Map())
        held_round = held_round.set(event.player, event)
        return {"contributions": state.contributions.set(event.round, held_round)}
    if isinstance(event, OutcomeComputed):
        return {"outcomes": state.outcomes.set(event.round, event)}
    if isinstance(event, AnnouncementChecked):
        return {"announcements": state.announcements.set(event.round, event)}
    if isinstance(event, TickClosed):
        return {"tick": event.tick + 1}
    if isinstance(event, WorldEnded):
        return {"ended": event}
    return {}


def _plan(state: State, event: PlanChanged) -> dict[str, Any]:
    queue = requeue(state.plans.get(event.agent, ()), event)
    return {
        "plans": state.plans.set(event.agent, queue),
        "plan_changes": state.plan_changes.set(event.agent, event.index + 1),
    }


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


# What the actions of a tick bring about, once its order is drawn (§2, step 4).
_APPLIED = (ActionResolved, PlanChanged, ContributionRecorded, OutcomeComputed, AnnouncementChecked)


def _scopes_after(state: State, event: Event) -> Scopes:
    """New memo tokens for the agents whose loop ``event`` may change (protocol._tick).

    Within a tick an agent's loop reads the world as it stood at the tick's start, its own
    calls, answers and memories, and the recorded embeddings: an event of one agent's loop
    (an answer to one of its calls or to the utility agent's extraction for it, the reading
    of an answer, its scored memories) renews that agent's token alone; an embedding's
    answer, shared by every agent that ranks its text, renews every token. A request changes
    no loop (the walks read answers and records, never ``requested``).

    The order is drawn once every loop of the tick has finished, and a finished loop's
    outcome (the action it read, or none) comes from its own records alone, which nothing
    later in the tick changes (with embeddings too: protocol._vectors asks for none once the
    action was asked for): the order and what applying the actions brings about renew no
    token, so that applying N actions does not walk N loops N times.

    Every other event (a round opening, the tick closing, the run's start and end, any event
    this does not name) renews every token."""
    if isinstance(event, ModelCallRequested):
        return state.scopes
    if isinstance(event, OrderDrawn) or _applied(state, event):
        return state.scopes
    if isinstance(event, ModelCallCompleted | ModelAttemptFailed):
        agent = _address_owner(event.address)
    elif isinstance(event, AnswerRead | AnswerMissing | MemoriesScored):
        agent = event.agent
    else:
        return Scopes()
    if agent is None or agent not in state.positions:
        return Scopes()
    return state.scopes.renew(agent)


def _applied(state: State, event: Event) -> bool:
    """Whether ``event`` is brought about by applying an action of the tick under way."""
    return isinstance(event, _APPLIED) and state.tick in state.orders


def _address_owner(address: str) -> str | None:
    """The agent whose loop a call serves: ``w/t<tick>/<agent>/...``, an extraction by the
    utility agent included."""
    scope, _, rest = address.partition("/")
    agent = rest.partition("/")[2].partition("/")[0]
    return agent if scope == "w" and agent else None
