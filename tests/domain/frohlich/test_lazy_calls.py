"""The requests of a decision are built when the engine sends them (``Call.later``), not
when ``decide`` walks past them: a request built late, after the history went on, must be
exactly the one that building it at once would have given."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from maai.domain import walk
from maai.domain.calls import ModelRequest
from maai.domain.frohlich import decide as decide_module
from maai.domain.frohlich import phase2
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.state import State, evolve
from maai.domain.walk import Call, Decision
from tests.domain.frohlich.test_walk_memo import simulated
from tests.support.answering import answer_some
from tests.support.driver import make_config, start

FIVE = ["ann", "ben", "cat", "dan", "eve"]


def built_at_once(state: State, monkeypatch: pytest.MonkeyPatch) -> list[ModelRequest]:
    """The decision's requests as the walks built them before calls were lazy: at once (and
    by full walks, which share no call with the memoized walks of ``decide``)."""

    def at_once(cls: type[Call], address: str, build: Callable[[], ModelRequest]) -> Call:
        return Call(build())

    with monkeypatch.context() as patch:
        patch.setattr(walk.Call, "later", classmethod(at_once))
        patch.setattr(decide_module, "memoized", lambda scope, name, begin: begin())
        patch.setattr(phase2, "closed_round", lambda state, round_, names: None)
        return decide(state).calls


@pytest.mark.parametrize("seed", [2, 9])
def test_requests_built_late_equal_requests_built_at_once(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config(
        seed=seed,
        phase2_rounds=3,
        agents=[{"name": n, "personality": "curious"} for n in FIVE],
    )
    respond = simulated(config)
    rng = random.Random(seed)
    state, _ = start(config)
    pending: dict[str, ModelRequest] = {}
    # Decisions whose requests are not built yet, with what building them at once gave.
    unbuilt: list[tuple[Decision, list[ModelRequest]]] = []
    late = 0
    while True:
        at_once = built_at_once(state, monkeypatch)
        decision = decide(state)
        assert [c.address for c in decision.needed] == [r.address for r in at_once]
        state = decision.state
        # The decisions of earlier steps are built only now, after more answers came in.
        for earlier, expected in unbuilt:
            late += sum(not c.built for c in earlier.needed)
            requests = earlier.calls
            assert requests == expected
            assert [r.request_hash() for r in requests] == [r.request_hash() for r in expected]
        unbuilt = [(decision, at_once)]
        if decision.done:
            break
        state = answer_some(state, evolve, at_once, respond, pending=pending, rng=rng)
    assert state.status == "completed"
    assert late > 100  # most requests were built late indeed


def test_a_call_refuses_a_request_built_for_another_address() -> None:
    config = make_config()
    state, _ = start(config)
    request = decide(state).calls[0]
    call = Call.later("p1/someone/else", lambda: request)
    with pytest.raises(ValueError, match="built a request for"):
        _ = call.request
