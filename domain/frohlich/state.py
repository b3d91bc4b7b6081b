"""The Frohlich run state and its reducer ``evolve``.

``evolve`` never mutates its input. The maps that grow with the history (records, answers,
requests) are persistent maps (``immutables.Map``): a new state shares all but O(log n) of
its input's entries, so one step costs the same at the 100th event and at the 100,000th, and
both states stay valid. The agents are held the same way, in the config's order. Events of
different agents touch different parts of the state, so Phase-1 events arriving in any
interleaving fold to the same state.

The tuples that grow (the public history, each agent's rankings, choices, payoffs and
memories) are still copied when one item is added: they hold a few thousand items at most in
a realistic run (the public history: one statement per agent and round, plus polls and
tallies), where copying costs microseconds, and the walks read them as plain sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from immutables import Map

from maai.domain.calls import ModelAnswer, Usage
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunClaimed,
    RunCompleted,
    RunFailed,
    RunSigned,
    RunStarted,
)
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    BallotResolved,
    DiscussionEnded,
    MemoryUpdated,
    PayoffAwarded,
    PollResolved,
    SpeakingOrderDrawn,
    StatementMade,
    StepStarted,
    TallyLine,
)
from maai.domain.frohlich.types import PrincipleChoice, Ranking
from maai.domain.updates import Changes, setter, updater
from maai.domain.walk import Scopes

RunStatus = Literal["new", "running", "completed", "failed"]


@dataclass(frozen=True, slots=True)
class AgentState:
    name: str
    memory: str = ""
    bank_cents: int = 0
    step: str = ""
    rankings: tuple[tuple[str, Ranking | None], ...] = ()
    choices: tuple[tuple[int, PrincipleChoice | None], ...] = ()
    payoffs: tuple[PayoffAwarded, ...] = ()
    missing: tuple[str, ...] = ()
    memory_history: tuple[MemoryUpdated, ...] = ()


class Agents(Mapping[str, AgentState]):
    """The agents by name, iterated in the config's order (the group's order, which prompts
    show); replacing one (``set``) costs O(log n) and leaves this mapping as it was."""

    __slots__ = ("_names", "_by_name")

    _names: tuple[str, ...]
    _by_name: Map[str, AgentState]

    def __init__(self, agents: Iterable[AgentState] = ()) -> None:
        agents = tuple(agents)
        self._names = tuple(a.name for a in agents)
        self._by_name = Map((a.name, a) for a in agents)
        if len(self._by_name) != len(self._names):
            raise ValueError("agent names must be unique")

    def set(self, name: str, agent: AgentState) -> Agents:
        if name not in self._by_name:
            raise KeyError(name)
        new = object.__new__(Agents)
        new._names = self._names
        new._by_name = self._by_name.set(name, agent)
        return new

    def __getitem__(self, name: str) -> AgentState:
        return self._by_name[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self._by_name.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Agents):
            return self._by_name == other._by_name
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Agents({dict(self.items())!r})"


@dataclass(frozen=True, slots=True)
class PublicItem:
    """One entry of the Phase-2 public history, as every agent sees it."""

    kind: Literal["statement", "poll", "tally", "vote"]
    round: int
    speaker: str | None
    text: str
    proposes_vote: bool = False
    poll_answers: tuple[tuple[str, bool | None], ...] = ()
    tally: tuple[TallyLine, ...] = ()


@dataclass(frozen=True, slots=True)
class CallTotals:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failed_attempts: int = 0


@dataclass(frozen=True, slots=True)
class State:
    started: RunStarted | None = None
    config: FrohlichConfig | None = None
    status: RunStatus = "new"
    failure: str | None = None
    answers: Map[str, ModelAnswer] = field(default_factory=Map)
    requested: Map[str, str] = field(default_factory=Map)
    records: Map[str, Event] = field(default_factory=Map)
    agents: Agents = field(default_factory=Agents)
    public: tuple[PublicItem, ...] = ()
    phase: int = 0
    round: int = 0
    order: tuple[str, ...] = ()
    outcome: PrincipleChoice | None = None
    discussion_ended: bool = False
    # Phase-2 rounds 1..n over (every agent's memory of them recorded): derived from the
    # records, so that a walk late in a long discussion starts at the round under way.
    rounds_closed: int = 0
    totals: CallTotals = field(default_factory=CallTotals)
    totals_by_phase: dict[str, CallTotals] = field(default_factory=dict)  # a few phases
    # One token per agent for memoized walks of that agent's own history (``domain.walk``);
    # derived data, so it takes no part in comparing states.
    scopes: Scopes = field(default_factory=Scopes, compare=False, repr=False)

    @property
    def seed(self) -> int:
        assert self.started is not None, "run has not started"
        return self.started.seed

    def has(self, key: str) -> bool:
        return key in self.records

    def record(self, key: str) -> Event | None:
        return self.records.get(key)


def initial_state() -> State:
    return State()


def fold(events: Iterable[Event], state: State | None = None) -> State:
    """``evolve`` over ``events``, from ``state`` (else the initial state), which is left
    untouched: the same state, built without a copy of the whole state per event
    (``maai.domain.updates``). The copy made at the start is changed in place, event by
    event, by the handlers ``evolve`` uses; no one sees it before it is returned."""
    draft = _update_state(initial_state() if state is None else state, {})
    handlers = _HANDLERS
    # From Phase 2 on, every event renews every scope token (``_scopes_after``): one new
    # ``Scopes()`` stands for the one each event would make, set before anything reads it.
    renewed = False
    for event in events:
        cls = type(event)
        changes = (handlers.get(cls) or _handler(cls))(draft, event)
        if draft.phase >= 2 and "phase" not in changes:
            renewed = True
        else:
            if renewed:
                _set_state(draft, {"scopes": Scopes()})
                renewed = False
            changes["scopes"] = _scopes_after(draft, event, changes)
        _set_state(draft, changes)
    if renewed:
        _set_state(draft, {"scopes": Scopes()})
    return draft


_update_state: Callable[[State, Changes], State] = updater(State)
_set_state: Callable[[State, Changes], None] = setter(State)
_update_agent: Callable[[AgentState, Changes], AgentState] = updater(AgentState)


def evolve(state: State, event: Event) -> State:
    """The reducer: the state after ``event``. Pure; ``state`` is left untouched."""
    cls = type(event)
    handler = _HANDLERS.get(cls) or _handler(cls)
    changes = handler(state, event)
    changes["scopes"] = _scopes_after(state, event, changes)
    return _update_state(state, changes)


def _scopes_after(state: State, event: Event, changes: Changes) -> Scopes:
    """New tokens for the scopes ``event`` may change. In Phase 1 each agent works alone, so
    an event of one agent (its calls, the utility agent's extractions for it, its answers,
    draws, payoffs, memory) changes only that agent's walk. Anything else, and everything
    from Phase 2 on (where events are public), refreshes every token."""
    if changes.get("phase", state.phase) >= 2:
        return Scopes()
    agent = _phase1_owner(changes.get("agents", state.agents), event)
    if agent is None:
        return Scopes()
    return state.scopes.renew(agent)


def _phase1_owner(agents: Agents, event: Event) -> str | None:
    if isinstance(event, ModelCallRequested):
        address = event.request.address
    elif isinstance(event, ModelCallCompleted | ModelAttemptFailed):
        address = event.address
    else:
        agent = event.agent_name
        return agent if agent in agents else None
    # The address names the agent whose step the call serves, also for an extraction by the
    # utility agent ("p1/alice/s1.1/ranking/1/extract/1").
    phase, _, rest = address.partition("/")
    agent = rest.partition("/")[0]
    return agent if phase == "p1" and agent in agents else None


# --- the changes each kind of event makes ------------------------------------------------------


def _run_started(state: State, event: RunStarted) -> Changes:
    config = FrohlichConfig.model_validate(event.config)
    agents = Agents(AgentState(name=a.name) for a in config.agents)
    return {"started": event, "config": config, "status": "running", "agents": agents}


def _call_requested(state: State, event: ModelCallRequested) -> Changes:
    return {"requested": state.requested.set(event.request.address, event.request_hash)}


def _call_completed(state: State, event: ModelCallCompleted) -> Changes:
    usage = event.answer.usage
    phase = event.address.partition("/")[0]
    by_phase = dict(state.totals_by_phase)
    held = by_phase.get(phase)
    by_phase[phase] = _plus_call(_NO_CALLS if held is None else held, usage)
    return {
        "answers": state.answers.set(event.address, event.answer.without_raw()),
        "totals": _plus_call(state.totals, usage),
        "totals_by_phase": by_phase,
    }


def _plus_call(t: CallTotals, usage: Usage) -> CallTotals:
    return CallTotals(
        t.calls + 1,
        t.input_tokens + usage.input_tokens,
        t.output_tokens + usage.output_tokens,
        t.failed_attempts,
    )


_NO_CALLS = CallTotals()


def _attempt_failed(state: State, event: ModelAttemptFailed) -> Changes:
    return {"totals": replace(state.totals, failed_attempts=state.totals.failed_attempts + 1)}


def _run_failed(state: State, event: RunFailed) -> Changes:
    return {"status": "failed", "failure": event.reason}


def _run_completed(state: State, event: RunCompleted) -> Changes:
    return {"status": "completed", "phase": 3, "failure": None}


def _unread(state: State, event: Event) -> Changes:
    """A recorded fact the state does not hold (``run.claimed``)."""
    return {}


def _run_signed(state: State, event: RunSigned) -> Changes:
    return {}  # evidence about the ledger (docs/ledger.md), not about the run


def _domain_event(state: State, event: Event) -> Changes:
    """Every other event is a record, looked up by its key; some change more."""
    key = event.key  # a property, built on each read
    changes: Changes = {"records": state.records.set(key, event)}
    if state.status == "failed":
        # A resumed run appends new domain events after its failure: it is running again.
        changes["status"] = "running"
        changes["failure"] = None
    more = _DOMAIN.get(type(event))
    if more is not None:
        more(state, event, changes)
    if key.startswith(_ROUND_MEMORY_KEYS):
        changes["rounds_closed"] = _rounds_closed(state, changes["records"])
    return changes


_ROUND_MEMORY_KEYS = ("memory/p2/r", "missing/p2/r")


def memory_over(records: Map[str, Event], slot: str) -> bool:
    """Whether the memory update of ``slot`` is over: recorded, or missing (every answer
    was empty, so the memory stayed as it was)."""
    return f"memory/{slot}" in records or f"missing/{slot}" in records


def _rounds_closed(state: State, records: Map[str, Event]) -> int:
    """How many Phase-2 rounds are over: each agent's memory of them over."""
    assert state.config is not None
    names = [a.name for a in state.config.agents]
    closed = state.rounds_closed
    while all(memory_over(records, f"p2/r{closed + 1}/{n}/memory") for n in names):
        closed += 1
    return closed


def _with_agent(state: State, changes: Changes, name: str, **agent_changes: Any) -> None:
    agents = state.agents
    changes["agents"] = agents.set(name, _update_agent(agents[name], agent_changes))


def _step_started(state: State, event: StepStarted, changes: Changes) -> None:
    if event.agent is not None:
        _with_agent(state, changes, event.agent, step=event.step)
    if event.step.startswith("2.") and state.phase < 2:
        changes["phase"] = 2
    elif event.step.startswith("1.") and state.phase < 1:
        changes["phase"] = 1


def _answer_accepted(state: State, event: AnswerAccepted, changes: Changes) -> None:
    agent = state.agents[event.agent]
    if event.kind == "ranking":
        ranking = Ranking.model_validate(event.value)
        rankings = (*agent.rankings, (_step_of(event.slot), ranking))
        _with_agent(state, changes, event.agent, rankings=rankings)
    elif event.kind == "choice":
        choice = PrincipleChoice.model_validate(event.value)
        choices = (*agent.choices, (_round_of(event.slot), choice))
        _with_agent(state, changes, event.agent, choices=choices)


def _answer_missing(state: State, event: AnswerMissing, changes: Changes) -> None:
    agent = state.agents[event.agent]
    agent_changes: dict[str, Any] = {"missing": (*agent.missing, event.slot)}
    if event.kind == "ranking":
        agent_changes["rankings"] = (*agent.rankings, (_step_of(event.slot), None))
    elif event.kind == "choice":
        agent_changes["choices"] = (*agent.choices, (_round_of(event.slot), None))
    _with_agent(state, changes, event.agent, **agent_changes)


def _payoff_awarded(state: State, event: PayoffAwarded, changes: Changes) -> None:
    agent = state.agents[event.agent]
    _with_agent(
        state,
        changes,
        event.agent,
        bank_cents=agent.bank_cents + event.payoff_cents,
        payoffs=(*agent.payoffs, event),
    )


def _memory_updated(state: State, event: MemoryUpdated, changes: Changes) -> None:
    agent = state.agents[event.agent]
    _with_agent(
        state,
        changes,
        event.agent,
        memory=event.memory,
        memory_history=(*agent.memory_history, event),
    )


def _speaking_order_drawn(state: State, event: SpeakingOrderDrawn, changes: Changes) -> None:
    changes["round"] = event.round
    changes["order"] = tuple(event.order)


def _statement_made(state: State, event: StatementMade, changes: Changes) -> None:
    item = PublicItem(
        kind="statement",
        round=event.round,
        speaker=event.agent,
        text=event.text,
        proposes_vote=event.proposes_vote,
    )
    changes["public"] = (*state.public, item)


def _poll_resolved(state: State, event: PollResolved, changes: Changes) -> None:
    item = PublicItem(
        kind="vote" if event.passed else "poll",
        round=event.round,
        speaker=event.proposer,
        text="",
        poll_answers=tuple(event.answers_in(state.agents)),
    )
    changes["public"] = (*state.public, item)


def _ballot_resolved(state: State, event: BallotResolved, changes: Changes) -> None:
    if event.consensus:
        changes["outcome"] = event.agreement
        return
    item = PublicItem(
        kind="tally", round=event.round, speaker=None, text="", tally=tuple(event.tally)
    )
    changes["public"] = (*state.public, item)


def _discussion_ended(state: State, event: DiscussionEnded, changes: Changes) -> None:
    changes["discussion_ended"] = True
    changes["outcome"] = event.agreement


Handler = Callable[[State, Any], Changes]
DomainHandler = Callable[[State, Any, Changes], None]

_HANDLERS: dict[type, Handler] = {
    RunStarted: _run_started,
    ModelCallRequested: _call_requested,
    ModelCallCompleted: _call_completed,
    ModelAttemptFailed: _attempt_failed,
    RunFailed: _run_failed,
    RunCompleted: _run_completed,
    RunClaimed: _unread,
    RunSigned: _run_signed,
}

_DOMAIN: dict[type, DomainHandler] = {
    StepStarted: _step_started,
    AnswerAccepted: _answer_accepted,
    AnswerMissing: _answer_missing,
    PayoffAwarded: _payoff_awarded,
    MemoryUpdated: _memory_updated,
    SpeakingOrderDrawn: _speaking_order_drawn,
    StatementMade: _statement_made,
    PollResolved: _poll_resolved,
    BallotResolved: _ballot_resolved,
    DiscussionEnded: _discussion_ended,
}


def _handler(cls: type) -> Handler:
    """The handler of an event class (dispatch on the exact class; a subclass is handled as
    its nearest registered base, as ``isinstance`` tests would)."""
    handler = _HANDLERS.get(cls)
    if handler is None:
        handler = next((_HANDLERS[b] for b in cls.__mro__ if b in _HANDLERS), _domain_event)
        _HANDLERS[cls] = handler
        if handler is _domain_event and cls not in _DOMAIN:
            domain = next((_DOMAIN[b] for b in cls.__mro__ if b in _DOMAIN), None)
            if domain is not None:
                _DOMAIN[cls] = domain
    return handler


def _round_of(slot: str) -> int:
    # Phase-1 choice slots look like "p1/alice/r3/choice".
    for part in slot.split("/"):
        if part.startswith("r") and part[1:].isdigit():
            return int(part[1:])
    return 0


def _step_of(slot: str) -> str:
    # Ranking slots look like "p1/alice/s1.2/ranking" or "p2/alice/s2.3/ranking".
    for part in slot.split("/"):
        if part.startswith("s") and part[1:2].isdigit():
            return part[1:]
    return ""
