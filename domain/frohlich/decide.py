"""``decide(state)``: what the Frohlich protocol needs next (DESIGN.md, the decider)."""

from __future__ import annotations

from functools import partial

from maai.domain.events import RunCompleted
from maai.domain.frohlich.events import StepStarted
from maai.domain.frohlich.phase1 import phase1_agent
from maai.domain.frohlich.phase2 import phase2
from maai.domain.frohlich.state import State, evolve
from maai.domain.frohlich.steps import config_of
from maai.domain.walk import Decision, Emit, Walk, memoized, parallel, run_walk, wait

PHASE2_STARTED = StepStarted(step="2.1").key


def protocol(state: State) -> Walk[None]:
    if state.status == "completed":
        return
    config = config_of(state)
    # Phase 2 starts only once every Phase-1 walk has finished, and it needs nothing they
    # return: after that, walking Phase 1 again would only cost time.
    if not state.has(PHASE2_STARTED):
        # Each agent's walk is remembered until an event of that agent arrives: most
        # decisions follow one agent's answer and walk only that agent again.
        yield from parallel(
            [
                memoized(state.scopes.get(a.name), "phase1", partial(phase1_agent, state, a.name))
                for a in config.agents
            ]
        )
    yield from phase2(state)
    yield from wait([Emit(RunCompleted())])


def decide(state: State) -> Decision:
    """Events derivable now (folded into ``Decision.state``) and the model calls to make.
    Pure: the same state always gives the same decision."""
    if state.started is None:
        raise ValueError("the run has not started: record RunStarted first")
    return run_walk(state, protocol, evolve)
