"""``decide(state)``: what the world needs next, as a walk (``maai.domain.walk``;
docs/world.md §2).

A tick: the game opens a round when one is due; every agent, concurrently with the others
and against the world as it stood at the tick's start, scores what it observed in the last
tick (one call for all its new observations, skipped when there are none), then chooses one
action (its reaction to the new observations and a new plan when it has none come in the same
answer).
Then code draws the order, applies the actions one by one (each checked against the world as
already changed), ends expired plans and closes the tick. The walk starts at the current
tick: every earlier tick is closed, so nothing in it can still be needed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from maai.domain.address import attempt_address
from maai.domain.answer_text import JsonProblem, find_json_object
from maai.domain.calls import ModelRequest
from maai.domain.elicit import Elicited, Question, UtilityReading, elicit
from maai.domain.embeddings import embedding_address, embedding_request
from maai.domain.events import RunCompleted
from maai.domain.extraction import ExtractionFailure
from maai.domain.random_streams import shuffle
from maai.domain.reading import Invalid, Parsed, Undecided
from maai.domain.walk import (
    Call,
    Decision,
    Emit,
    Need,
    Scope,
    Walk,
    each_call_once,
    memoized,
    parallel,
    run_walk,
    wait,
)
from maai.domain.world import memory, render
from maai.domain.world.apply import resolve, whose_turn
from maai.domain.world.events import (
    MemoriesScored,
    MemoryItem,
    OrderDrawn,
    PlanChanged,
    RoundStarted,
    TickClosed,
    WorldEnded,
)
from maai.domain.world.parsing import (
    ActView,
    check_action,
    check_scores,
    read_action,
    read_scores,
)
from maai.domain.world.plans import expired
from maai.domain.world.state import State, evolve
from maai.domain.world.utility_requests import (
    ACT,
    HOW,
    IMPORTANCE,
    config_of,
    stated_action,
    utility_request,
)

T = TypeVar("T")


def decide(state: State) -> Decision:
    """Events derivable now (folded into ``Decision.state``) and the model calls to make."""
    if state.started is None:
        raise ValueError("the run has not started: record RunStarted first")
    return run_walk(state, protocol, evolve)


def protocol(state: State) -> Walk[None]:
    if state.status == "completed":
        return
    yield from _initial_plans(state)
    if state.ended is None:
        yield from _tick(state)
    yield from wait([Emit(RunCompleted())])


def _initial_plans(state: State) -> Walk[None]:
    config = config_of(state)
    needs = [
        Emit(
            PlanChanged(
                tick=0,
                agent=a.name,
                index=0,
                status="set",
                location=a.plan.location,
                description=a.plan.description,
                stop_condition=a.plan.stop_condition,
                max_ticks=a.plan.max_ticks or config.plan_max_ticks,
                # The first of its queue (not recorded before plan lists).
                **({"place": 0, "plan": 0} if config.plan_lists else {}),
            )
        )
        for a in config.world.agents
        if a.plan is not None and not state.has(f"plan/{a.name}/0")
    ]
    if needs:
        yield from wait(list(needs))


def _tick(state: State) -> Walk[None]:
    config = config_of(state)
    t = state.tick
    game = config.game
    # Checked at the tick's start only: the tick of the last announcement is played out.
    if game is not None and len(state.announcements) == game.rounds and t not in state.orders:
        yield from wait([Emit(WorldEnded(tick=t, reason="game over"))])
    if t >= config.max_ticks:
        yield from wait([Emit(WorldEnded(tick=t, reason="tick limit"))])
    # A round opens at a tick's start (before its order is drawn), never mid-tick.
    due = game is not None and state.round is None and len(state.rounds) < game.rounds
    if due and t not in state.orders:
        yield from wait([Emit(_round_started(state))])
    answers = yield from _loops(state, t)
    chosen = dict(zip(config.names, answers, strict=True))
    if t not in state.orders:
        label = f"tick/{t}/order"
        order = shuffle(state.seed, label, config.names)
        yield from wait([Emit(OrderDrawn(tick=t, label=label, order=order))])
    for position, agent in enumerate(state.orders[t].order):
        if not state.has(f"action/{t}/{agent}"):
            yield from wait([Emit(e) for e in resolve(state, agent, position, chosen[agent])])
    yield from wait([*(Emit(e) for e in expired(state)), Emit(TickClosed(tick=t))])


def _loops(state: State, t: int) -> Walk[list[dict[str, Any] | None]]:
    """Every agent's loop in tick ``t``, side by side: ``parallel`` of the agents' loops, the
    same needs in the same order and the same results.

    Each agent's loop is remembered on its token (State.scopes) until an event of its own
    or of the world renews it: a decision made when one agent's answer arrives walks that
    agent again, not every agent (whose requests, memories and prompts would be rebuilt).
    A remembered outcome is read off the token here, without a walk: a decision passes by
    every agent's loop (and every action applied is a decision's round), so a walk per agent
    made the work per answer grow with the number of agents."""
    name = f"tick/{t}"
    results: list[dict[str, Any] | None] = []
    needs: list[Need] = []
    for agent in config_of(state).names:
        scope = state.scopes.get(agent)
        outcome = _remembered(scope, name)
        if outcome is None:
            outcome = _first_step(memoized(scope, name, partial(_agent, state, agent)))
        finished, value = outcome
        if finished:
            results.append(value)
        else:
            needs.extend(value)
    if needs:
        yield from wait(each_call_once(needs))
    return results


def _remembered(scope: Scope, name: str) -> tuple[bool, Any] | None:
    """The outcome of the walk ``name`` remembered on ``scope`` (as ``memoized`` keeps it)."""
    return scope.outcomes.get(name)


def _first_step(walk: Walk[T]) -> tuple[bool, Any]:
    """(False, what ``walk`` needs first) or (True, its result): one step, as ``parallel``
    takes it."""
    try:
        return (False, next(walk))
    except StopIteration as stop:
        return (True, stop.value)
    finally:
        walk.close()


def _round_started(state: State) -> RoundStarted:
    config = config_of(state)
    game = config.game
    assert game is not None
    r = len(state.rounds) + 1
    if game.turn_order is not None:
        return RoundStarted(round=r, tick=state.tick, order=list(game.turn_order))
    label = f"pgg/round/{r}/order"
    order = shuffle(state.seed, label, config.players)
    return RoundStarted(round=r, tick=state.tick, order=order, label=label)


def _agent(state: State, agent: str) -> Walk[dict[str, Any] | None]:
    """One agent's loop in this tick, in the order of its stages (docs/world.md §4): score
    the new observations, then choose an action. The agents run side by side; one agent's
    calls follow each other, so its thread of events is the same in every run. Returns the
    action read, or None when none could be read."""
    yield from parallel([_remember(state, agent), _vectors(state, agent)])
    act = yield from _act(state, agent)
    return act.value  # type: ignore[no-any-return]


def _vectors(state: State, agent: str) -> Walk[None]:
    """The embeddings the act prompt's retrieval ranks (§4), asked for alongside the
    importance call: one call per text not embedded yet in the run (an address per text, so
    two agents ranking the same memory share the call)."""
    config = config_of(state)
    if config.embeddings is None or config.retrieval.k == 0 or not config.retrieval.relevance:
        return None
    # Once its action was asked for, the tick's ranking is done: a plan the agent's own action
    # changes later in the tick is ranked against in the next tick, whose start asks for it.
    if attempt_address(_act_slot(state.tick, agent), 1) in state.requested:
        return None
    older, query = render.ranked(state, agent, state.tick)
    if not older:
        return None
    calls = [
        Call(embedding_request(text, config.embeddings))
        for text in memory.ranked_texts(older, query)
        if state.answer(embedding_address(text)) is None
    ]
    if calls:
        yield from wait(list(calls))
    return None


# --- remember -------------------------------------------------------------------------------


def _remember(state: State, agent: str) -> Walk[None]:
    t = state.tick
    # Once scored, nothing is left to do: checked first, as most walks of a loop come by
    # here after its memories were recorded, and what was observed costs more to gather.
    if state.has(f"memories/{t}/{agent}"):
        return None
    seen = render.observations(state, agent, t - 1)
    if not seen:
        return None
    config = config_of(state)
    items = [a.description for a in seen]
    slot = f"w/t{t}/{agent}/importance"
    task = partial(render.importance_input, state, agent, items)
    question = Question(
        agent=agent,
        kind=IMPORTANCE,
        slot=slot,
        max_attempts=config.attempts.importance,
        build=partial(_request, state, agent, IMPORTANCE, task, {"observations": items}),
        task=task,
        parse=partial(read_scores, count=len(items)),
        utility=_utility(state, agent, IMPORTANCE, _Once(partial(dict, count=len(items)))),
    )
    got = yield from elicit(state, question)
    scores: list[int | None] = list(got.value) if got.value is not None else [None] * len(items)
    memories = [
        MemoryItem(description=d, created_tick=t - 1, importance=s)
        for d, s in zip(items, scores, strict=True)
    ]
    yield from wait([Emit(MemoriesScored(tick=t, agent=agent, memories=memories))])
    return None


# --- act ------------------------------------------------------------------------------------


def view_of(state: State, agent: str) -> ActView:
    config = config_of(state)
    where = state.positions[agent]
    spec = config.agent(agent)
    is_player = config.game is not None and spec.role == "player"
    has_plan = state.plan_of(agent) is not None
    new = render.observations(state, agent, state.tick - 1)
    return ActView(
        world=config.world,
        agent=agent,
        location=where,
        present=tuple(a for a in state.present(where) if a != agent),
        has_plan=has_plan,
        # React is asked only of an agent with a plan that observed something new (§4).
        react_asked=has_plan and bool(new),
        role=spec.role if config.game is not None else None,
        endowment=config.endowment(agent) if is_player else None,
        players=tuple(config.players),
        max_plans=config.max_plans,
    )


def _act_slot(tick: int, agent: str) -> str:
    return f"w/t{tick}/{agent}/act"


class _Once:
    """``make()``, made on first use and kept: what only some walks of an agent's loop read
    (its view, the facts its prompt states)."""

    __slots__ = ("_make", "_value")

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make: Callable[[], Any] | None = make
        self._value: Any = None

    def __call__(self) -> Any:
        if self._make is not None:
            self._value, self._make = self._make(), None
        return self._value


def _act(state: State, agent: str) -> Walk[Elicited]:
    """The agent's action. Its view and the facts of its prompt are made only when a walk
    reads them (to build the request, read the answer or ask the utility agent): most walks
    of a loop pass by an action already read, or by a call in flight, and need neither."""
    config = config_of(state)
    t = state.tick
    view = _Once(partial(view_of, state, agent))
    task = partial(_act_task, state, agent, view)
    question = Question(
        agent=agent,
        kind=ACT,
        slot=_act_slot(t, agent),
        max_attempts=config.attempts.action,
        build=partial(_act_request, state, agent, task, view),
        task=task,
        parse=partial(_read_act, view),
        utility=_utility(state, agent, ACT, _Once(partial(_act_view_context, view))),
    )
    return (yield from elicit(state, question))


def _act_task(state: State, agent: str, view: _Once, feedback: str | None) -> str:
    return render.tick_input(state, agent, view(), feedback)


def _act_request(
    state: State,
    agent: str,
    task: Any,
    view: _Once,
    address: str,
    attempt: int,
    feedback: str | None,
) -> ModelRequest:
    context = _act_context(state, agent, view())
    return _request(state, agent, ACT, task, context, address, attempt, feedback)


def _read_act(view: _Once, text: str) -> Any:
    return read_action(text, view=view())


def _act_view_context(view: _Once) -> dict[str, Any]:
    return _view_context(view())


def _view_context(view: ActView) -> dict[str, Any]:
    return {
        "location": view.location,
        "present": list(view.present),
        "has_plan": view.has_plan,
        "react_asked": view.react_asked,
        "role": view.role,
        "endowment": view.endowment,
    }


def _act_context(state: State, agent: str, view: ActView) -> dict[str, Any]:
    """The facts the prompt states, for the simulated participant (never the prompt text)."""
    config = config_of(state)
    queue = state.plans.get(agent, ())  # the current plan first, then those queued after it
    plan = queue[0] if queue else None
    context: dict[str, Any] = {
        "tick": state.tick,
        **_view_context(view),
        "places": [
            loc.name
            for loc in config.world.locations
            if loc.admits(agent) and loc.name != view.location
        ],
        "plan": None
        if plan is None
        else {
            "location": plan.location,
            "description": plan.description,
            "ticks": state.tick - plan.tick,
        },
        "observed": [a.description for a in render.observations(state, agent, state.tick - 1)],
    }
    if config.plan_lists:  # the prompt shows the queued plans and asks for up to max_plans
        context["queued"] = [
            {"location": p.location, "description": p.description} for p in queue[1:]
        ]
        context["max_plans"] = config.max_plans
    game = config.game
    r = state.round
    if game is not None and view.role is not None and r is not None:
        context["game"] = {
            "round": r,
            "turn": whose_turn(state),
            "contributed": agent in state.contributions.get(r, {}),
            "hall": game.game_room,
            "booth": game.contribution_room,
            "players": list(config.players),
        }
        if view.role == "moderator":
            context["game"]["seen"] = render.witnessed_contributions(state, agent)
            context["game"]["endowments"] = {p: config.endowment(p) for p in config.players}
            context["game"]["multiplier"] = game.multiplier
    return context


# --- requests -------------------------------------------------------------------------------


def _request(
    state: State,
    agent: str,
    purpose: str,
    task: Any,
    context: dict[str, Any],
    address: str,
    attempt: int,
    feedback: str | None,
) -> ModelRequest:
    config = config_of(state)
    spec = config.agent(agent)
    return ModelRequest(
        address=address,
        agent=agent,
        purpose=purpose,
        model=spec.model,
        system=render.system(state, agent),
        input=task(feedback),
        temperature=spec.temperature,
        context={**context, "attempt": attempt, "feedback": feedback},
    )


def _utility(
    state: State, agent: str, purpose: str, context: Callable[[], dict[str, Any]]
) -> UtilityReading:
    # ``context``: the facts the utility agent's request carries, made when first read.
    config = config_of(state)
    return UtilityReading(
        attempts=config.attempts.utility,
        request=partial(utility_request, state, agent, purpose, context),
        judge=partial(_judge, state, agent, purpose, context),
        how_to_answer=HOW[purpose],
    )


def _judge(
    state: State,
    agent: str,
    purpose: str,
    context: Callable[[], dict[str, Any]],
    reply: str,
    text: str,
) -> tuple[bool, Any] | ExtractionFailure:
    data = find_json_object(reply)
    if isinstance(data, JsonProblem):
        return ExtractionFailure(reason=str(data))
    if data is None:
        return ExtractionFailure(reason="no JSON object found in the reply")
    if data.get("readable") is not True:
        return (False, f"your answer could not be read. {HOW[purpose]}")
    result: Parsed[Any] | Undecided | Invalid
    if purpose == IMPORTANCE:
        result = check_scores(data.get("scores"), context()["count"])
    else:
        result = check_action(stated_action(data), view_of(state, agent))
    if isinstance(result, Parsed):
        return (True, result.value)
    if isinstance(result, Invalid):
        return (False, result.reason)
    assert isinstance(result, Undecided)
    return (False, f"{result.reason}. {HOW[purpose]}")
