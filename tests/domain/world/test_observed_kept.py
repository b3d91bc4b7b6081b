"""What an agent observed of a closed tick is kept for the run (``render.observations``):
a state of another history, branched from a common state, must read its own actions, not
those another branch read first."""

from __future__ import annotations

from maai.domain.world import render
from maai.domain.world.events import ActionResolved, TickClosed
from maai.domain.world.state import State, evolve, initial_state
from tests.support.world_driver import drive, load


def _branches() -> tuple[State, State, str]:
    """Two states after tick 0 closed, from one state before its first action: one with the
    recorded actions, one where an action witnessed by ``watcher`` was not."""
    config = load("world_free.yaml", seed=1)
    events = drive(config).events
    first = next(i for i, e in enumerate(events) if isinstance(e, ActionResolved))
    closed = next(i for i, e in enumerate(events) if isinstance(e, TickClosed))
    state = initial_state()
    for event in events[:first]:
        state = evolve(state, event)
    witnessed = next(
        e
        for e in events[first:closed]
        if isinstance(e, ActionResolved) and e.outcome == "applied" and len(e.witnesses) > 1
    )
    watcher = next(w for w in witnessed.witnesses if w != witnessed.agent)
    unseen = witnessed.model_copy(
        update={"witnesses": [w for w in witnessed.witnesses if w != watcher]}
    )
    recorded, changed = state, state
    for event in events[first : closed + 1]:
        recorded = evolve(recorded, event)
        changed = evolve(changed, unseen if event is witnessed else event)
    return recorded, changed, watcher


def test_a_branch_reads_the_actions_of_its_own_history() -> None:
    recorded, changed, watcher = _branches()
    assert recorded.renders is changed.renders  # one table, shared from the run's start
    seen = [a.description for a in render.observations(recorded, watcher, 0)]
    seen_in_branch = [a.description for a in render.observations(changed, watcher, 0)]
    assert len(seen_in_branch) == len(seen) - 1
    # And read again, each keeps its own.
    assert [a.description for a in render.observations(recorded, watcher, 0)] == seen
