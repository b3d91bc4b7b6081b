"""The world's memoized agent loops (``State.scopes``, protocol._tick) decide exactly what a
full walk decides, whatever order the answers arrive in, and a branch of a history never
reuses the other branch's memo; the persistent state leaves every earlier state as it was."""

from __future__ import annotations

import random
from typing import Any

import pytest

from maai.domain.answers import AnswerRejected
from maai.domain.calls import ModelRequest
from maai.domain.walk import Decision
from maai.domain.world import protocol
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import MemoryItem
from maai.domain.world.protocol import decide
from maai.domain.world.state import MemoryStream, State, evolve
from tests.support.answering import answered_at_random, completed, requested
from tests.support.world_driver import drive, load, simulated, start


def unmemoized(state: State, monkeypatch: pytest.MonkeyPatch) -> Decision:
    """The decision of a full walk: every agent's loop walked, nothing remembered read."""
    with monkeypatch.context() as patch:
        patch.setattr(protocol, "memoized", lambda scope, name, begin: begin())
        patch.setattr(protocol, "_remembered", lambda scope, name: None)
        return decide(state)


def asked(state: State, request: ModelRequest) -> State:
    return evolve(state, requested(request))


EMBEDDINGS = {"embeddings": {"model": "simulated"}}


@pytest.mark.parametrize(
    ("config_name", "seed", "more"),
    [
        ("world_pgg.yaml", 1, {}),
        ("world_pgg.yaml", 8, {}),
        ("world_free.yaml", 3, {}),
        # Embedding calls are shared by the agents that rank a text, and asked for as soon as
        # a plan changes, also while a tick's actions are applied.
        ("world_pgg.yaml", 2, EMBEDDINGS),
        ("world_free.yaml", 5, EMBEDDINGS),
    ],
)
def test_memoized_decisions_equal_full_walks_in_any_answer_order(
    config_name: str, seed: int, more: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shipped seeds give answers sent back and extractions by the utility agent; the
    # answers arrive in random batches, as they do from real models.
    config: WorldConfig = load(config_name, max_ticks=8, **more)
    begun, _ = start(config)
    decisions = 0
    for state, decision in answered_at_random(
        begun, decide, evolve, simulated(config), random.Random(seed)
    ):
        reference = unmemoized(state, monkeypatch)
        assert decision.events == reference.events
        assert decision.calls == reference.calls
        assert decision.done == reference.done
        decisions += 1
    state = decision.state
    assert state.status == "completed"
    assert decisions > 15
    assert any(isinstance(r, AnswerRejected) for r in state.records.values())


def test_a_branch_does_not_see_the_memo_of_another_branch() -> None:
    config = load("world_free.yaml")
    state, _ = start(config)
    first = decide(state)
    state = first.state
    request = next(r for r in first.calls if r.agent == "Jonas")
    before = asked(state, request)
    # Two histories from one state: Jonas answers well in one and nonsense in the other.
    good = evolve(before, completed(request, '{"action": "wait"}'))
    bad = evolve(before, completed(request, "no idea"))
    good_events = decide(good).events
    bad_events = decide(bad).events
    assert good_events != bad_events
    # Asked again, each branch still decides as before (the memo of one did not leak).
    assert decide(good).events == good_events
    assert decide(bad).events == bad_events


def _jonas_answered_alone() -> State:
    """The free world after every first call was asked and Jonas alone answered."""
    state, _ = start(load("world_free.yaml"))
    first = decide(state)
    state = first.state
    for request in first.calls:
        state = asked(state, request)
    jonas = next(r for r in first.calls if r.agent == "Jonas")
    return evolve(state, completed(jonas, '{"action": "wait"}'))


def test_a_request_in_flight_is_not_built_again(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _jonas_answered_alone()
    built: list[str] = []
    real = protocol._request

    def counting(state: State, agent: str, *args: object) -> ModelRequest:
        built.append(agent)
        return real(state, agent, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(protocol, "_request", counting)
    decide(state)
    assert built == []  # Jonas's answer was read; the others' requests are still out


def test_memories_grow_without_changing_an_earlier_state() -> None:
    run = drive(load("world_pgg.yaml"))
    state = run.state
    assert repr(state) == "State(status='completed', tick=13, agents=5)"  # never the world
    for agent in state.config.names if state.config else []:
        stream = state.memories.get(agent, MemoryStream())
        items = list(stream)
        assert len(stream) == len(items) > 0
        assert stream == tuple(items) and tuple(stream[i] for i in range(len(items))) == tuple(
            items
        )
    first = MemoryStream([MemoryItem(description="a", created_tick=0, importance=1)])
    second = first.append([MemoryItem(description="b", created_tick=1, importance=None)])
    assert [m.description for m in first] == ["a"]
    assert [m.description for m in second] == ["a", "b"] and second[-1].description == "b"


def test_an_answer_walks_the_loop_of_its_agent_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # The work a decision does when one answer arrives must not grow with the number of
    # agents: the others' loops (and their views, prompts, memories) are read off their
    # tokens, not walked again.
    state = _jonas_answered_alone()
    walked: list[str] = []
    viewed: list[str] = []
    real_agent, real_view = protocol._agent, protocol.view_of

    def agent_walk(state: State, agent: str) -> Any:
        walked.append(agent)
        return real_agent(state, agent)

    def view(state: State, agent: str) -> Any:
        viewed.append(agent)
        return real_view(state, agent)

    monkeypatch.setattr(protocol, "_agent", agent_walk)
    monkeypatch.setattr(protocol, "view_of", view)
    decision = decide(state)
    assert len(state.config.names) > 2 and len(decision.calls) > 1  # the others still wait
    assert walked and set(walked) == {"Jonas"}
    # Jonas's view is made once, to read the answer; the walks after the reading pass by
    # the action read and make none.
    assert len(walked) > 1 and viewed == ["Jonas"]
