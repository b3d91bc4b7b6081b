"""The Frohlich run state and its reducer ``evolve``.

``evolve`` never mutates its input: it copies the containers it touches. Events of
different agents touch different parts of the state, so Phase-1 events arriving in any
interleaving fold to the same state.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from maai.domain.calls import ModelAnswer
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunFailed,
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
from maai.domain.walk import Scope

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
    answers: dict[str, ModelAnswer] = field(default_factory=dict)
    requested: dict[str, str] = field(default_factory=dict)
    records: dict[str, Event] = field(default_factory=dict)
    agents: dict[str, AgentState] = field(default_factory=dict)
    public: tuple[PublicItem, ...] = ()
    phase: int = 0
    round: int = 0
    order: tuple[str, ...] = ()
    outcome: PrincipleChoice | None = None
    discussion_ended: bool = False
    totals: CallTotals = field(default_factory=CallTotals)
    totals_by_phase: dict[str, CallTotals] = field(default_factory=dict)
    # One token per agent for memoized walks of that agent's own history (``domain.walk``);
    # derived data, so it takes no part in comparing states.
    scopes: dict[str, Scope] = field(default_factory=dict, compare=False, repr=False)

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


def fold(events: list[Event] | tuple[Event, ...], state: State | None = None) -> State:
    state = state or initial_state()
    for event in events:
        state = evolve(state, event)
    return state


def evolve(state: State, event: Event) -> State:
    """The reducer: the state after ``event``. Pure; ``state`` is left untouched."""
    after = _evolve(state, event)
    return replace(after, scopes=_scopes_after(after, event))


def _scopes_after(state: State, event: Event) -> dict[str, Scope]:
    """New tokens for the scopes ``event`` may change. In Phase 1 each agent works alone, so
    an event of one agent (its calls, the utility agent's extractions for it, its answers,
    draws, payoffs, memory) changes only that agent's walk. Anything else, and everything
    from Phase 2 on (where events are public), refreshes every token."""
    agent = _phase1_owner(state, event)
    if agent is None:
        return {name: Scope() for name in state.agents}
    scopes = dict(state.scopes)
    scopes[agent] = Scope()
    return scopes


def _phase1_owner(state: State, event: Event) -> str | None:
    if state.phase >= 2:
        return None
    if isinstance(event, ModelCallRequested | ModelCallCompleted | ModelAttemptFailed):
        # The address names the agent whose step the call serves, also for an extraction
        # by the utility agent ("p1/alice/s1.1/ranking/1/extract/1").
        address = event.request.address if isinstance(event, ModelCallRequested) else event.address
        phase, _, rest = address.partition("/")
        agent = rest.partition("/")[0]
        return agent if phase == "p1" and agent in state.agents else None
    agent = event.agent_name
    return agent if agent in state.agents else None


def _evolve(state: State, event: Event) -> State:
    if isinstance(event, RunStarted):
        config = FrohlichConfig.model_validate(event.config)
        agents = {a.name: AgentState(name=a.name) for a in config.agents}
        return replace(state, started=event, config=config, status="running", agents=agents)
    if isinstance(event, ModelCallRequested):
        requested = dict(state.requested)
        requested[event.request.address] = event.request_hash
        return replace(state, requested=requested)
    if isinstance(event, ModelCallCompleted):
        return _call_completed(state, event)
    if isinstance(event, ModelAttemptFailed):
        totals = replace(state.totals, failed_attempts=state.totals.failed_attempts + 1)
        return replace(state, totals=totals)
    if isinstance(event, RunFailed):
        return replace(state, status="failed", failure=event.reason)
    if isinstance(event, RunCompleted):
        return replace(state, status="completed", phase=3, failure=None)

    records = dict(state.records)
    records[event.key] = event
    state = replace(state, records=records)
    if state.status == "failed":
        # A resumed run appends new domain events after its failure: it is running again.
        state = replace(state, status="running", failure=None)
    return _domain(state, event)


def _call_completed(state: State, event: ModelCallCompleted) -> State:
    answers = dict(state.answers)
    answers[event.address] = event.answer
    usage = event.answer.usage
    phase = event.address.split("/", 1)[0]

    def add(t: CallTotals) -> CallTotals:
        return replace(
            t,
            calls=t.calls + 1,
            input_tokens=t.input_tokens + usage.input_tokens,
            output_tokens=t.output_tokens + usage.output_tokens,
        )

    by_phase = dict(state.totals_by_phase)
    by_phase[phase] = add(by_phase.get(phase, CallTotals()))
    return replace(state, answers=answers, totals=add(state.totals), totals_by_phase=by_phase)


def _with_agent(state: State, name: str, **changes: object) -> State:
    agents = dict(state.agents)
    agents[name] = replace(agents[name], **changes)  # type: ignore[arg-type]
    return replace(state, agents=agents)


def _domain(state: State, event: Event) -> State:
    if isinstance(event, StepStarted):
        if event.agent is not None:
            state = _with_agent(state, event.agent, step=event.step)
        if event.step.startswith("2.") and state.phase < 2:
            state = replace(state, phase=2)
        elif event.step.startswith("1.") and state.phase < 1:
            state = replace(state, phase=1)
        return state
    if isinstance(event, AnswerAccepted):
        agent = state.agents[event.agent]
        if event.kind == "ranking":
            ranking = Ranking.model_validate(event.value)
            step = _step_of(event.slot)
            return _with_agent(state, event.agent, rankings=(*agent.rankings, (step, ranking)))
        if event.kind == "choice":
            choice = PrincipleChoice.model_validate(event.value)
            rnd = _round_of(event.slot)
            return _with_agent(state, event.agent, choices=(*agent.choices, (rnd, choice)))
        return state
    if isinstance(event, AnswerMissing):
        agent = state.agents[event.agent]
        state = _with_agent(state, event.agent, missing=(*agent.missing, event.slot))
        if event.kind == "ranking":
            agent = state.agents[event.agent]
            step = _step_of(event.slot)
            state = _with_agent(state, event.agent, rankings=(*agent.rankings, (step, None)))
        elif event.kind == "choice":
            agent = state.agents[event.agent]
            rnd = _round_of(event.slot)
            state = _with_agent(state, event.agent, choices=(*agent.choices, (rnd, None)))
        return state
    if isinstance(event, PayoffAwarded):
        agent = state.agents[event.agent]
        return _with_agent(
            state,
            event.agent,
            bank_cents=agent.bank_cents + event.payoff_cents,
            payoffs=(*agent.payoffs, event),
        )
    if isinstance(event, MemoryUpdated):
        agent = state.agents[event.agent]
        return _with_agent(
            state,
            event.agent,
            memory=event.memory,
            memory_history=(*agent.memory_history, event),
        )
    if isinstance(event, SpeakingOrderDrawn):
        return replace(state, round=event.round, order=tuple(event.order))
    if isinstance(event, StatementMade):
        item = PublicItem(
            kind="statement",
            round=event.round,
            speaker=event.agent,
            text=event.text,
            proposes_vote=event.proposes_vote,
        )
        return replace(state, public=(*state.public, item))
    if isinstance(event, PollResolved):
        item = PublicItem(
            kind="vote" if event.passed else "poll",
            round=event.round,
            speaker=event.proposer,
            text="",
            poll_answers=tuple(event.answers_in(state.agents)),
        )
        return replace(state, public=(*state.public, item))
    if isinstance(event, BallotResolved):
        if event.consensus:
            return replace(state, outcome=event.agreement)
        item = PublicItem(
            kind="tally", round=event.round, speaker=None, text="", tally=tuple(event.tally)
        )
        return replace(state, public=(*state.public, item))
    if isinstance(event, DiscussionEnded):
        return replace(state, discussion_ended=True, outcome=event.agreement)
    return state


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
