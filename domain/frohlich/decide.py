"""``decide(state)``: what the Frohlich protocol needs next (DESIGN.md, the decider)."""

from __future__ import annotations

from domain.events import RunCompleted
from domain.frohlich.phase1 import phase1_agent
from domain.frohlich.phase2 import phase2
from domain.frohlich.state import State, evolve
from domain.frohlich.steps import config_of
from domain.walk import Decision, Emit, Walk, parallel, run_walk, wait


def protocol(state: State) -> Walk[None]:
    if state.status == "completed":
        return
    config = config_of(state)
    yield from parallel([phase1_agent(state, a.name) for a in config.agents])
    yield from phase2(state)
    yield from wait([Emit(RunCompleted())])


def decide(state: State) -> Decision:
    """Events derivable now (folded into ``Decision.state``) and the model calls to make.
    Pure: the same state always gives the same decision."""
    if state.started is None:
        raise ValueError("the run has not started: record RunStarted first")
    return run_walk(state, protocol, evolve)
