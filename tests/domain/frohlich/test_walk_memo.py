"""The decider's shortcuts (memoized Phase-1 walks, closed Phase-2 rounds read off the
records, a poll's question rendered once per walk, a round's summary rendered once per item,
the public history put in place of a mark) decide exactly what a full walk decides, whatever
order the answers arrive in, and a branch of a history never reuses the other branch's
memo."""

from __future__ import annotations

import random

import pytest

from maai.domain.calls import ModelRequest
from maai.domain.frohlich import decide as decide_module
from maai.domain.frohlich import phase2, render
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.events import DiscussionEnded
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.frohlich.simulated import build_policy as build_simulated
from maai.domain.frohlich.state import State, evolve
from maai.domain.walk import Decision
from tests.domain.frohlich.test_history_splice import built_around_the_history
from tests.support.answering import Responder, answered_at_random, completed, requested
from tests.support.driver import agreeable, make_config, start

FIVE = ["ann", "ben", "cat", "dan", "eve"]


def unmemoized(state: State, monkeypatch: pytest.MonkeyPatch) -> Decision:
    with monkeypatch.context() as patch:
        patch.setattr(decide_module, "memoized", lambda scope, name, begin: begin())
        patch.setattr(phase2, "closed_round", lambda state, round_, names: None)
        patch.setattr(phase2, "_once_per_walk", lambda function: function)
        patch.setattr(render, "round_history_text", render.history_text)
        patch.setattr(phase2, "_showing_history", built_around_the_history)
        return decide(state)


def simulated(config: FrohlichConfig) -> Responder:
    """The simulated participants and utility agent of ``config``."""
    models = {a.name: build_simulated(a, seed=config.seed) for a in config.agents}
    utility = build_simulated(None, seed=config.seed)

    def respond(request: ModelRequest) -> str:
        model = models.get(request.agent, utility)
        assert isinstance(model, SimulatedParticipant | SimulatedUtility)
        return model.answer(request, request.output_schema)

    return respond


@pytest.mark.parametrize("seed", [1, 7])
def test_memoized_decisions_equal_full_walks_in_any_answer_order(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Simulated participants give unreadable answers now and then, so retries, rejections
    # and the utility agent's extractions all occur; answers arrive in random batches.
    config = make_config(
        seed=seed,
        phase2_rounds=4,
        agents=[{"name": n, "personality": "curious"} for n in FIVE],
    )
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
    assert decisions > 50
    ended = state.records["discussion/ended"]
    assert isinstance(ended, DiscussionEnded)
    assert ended.rounds_used >= 2  # so that closed rounds were read off the records


def test_a_branch_does_not_see_the_memo_of_another_branch() -> None:
    config = make_config()
    state, _ = start(config)
    first = decide(state)
    state = first.state
    request = next(r for r in first.calls if r.agent == "alice")
    asked = evolve(state, requested(request))
    # Two histories from one state: alice answers well in one and nonsense in the other.
    good = evolve(asked, completed(request, agreeable(request)))
    bad = evolve(asked, completed(request, "no idea"))
    good_events = decide(good).events
    bad_events = decide(bad).events
    assert good_events != bad_events
    # Asked again, each branch still decides as before (the memo of one did not leak).
    assert decide(good).events == good_events
    assert decide(bad).events == bad_events


def test_a_poll_asked_again_beside_a_first_asking_is_asked_with_its_own_feedback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # alice's poll answer is unreadable (the utility agent cannot read it either), so she is
    # asked again with feedback while bob's first asking still waits: one walk builds both,
    # and what it renders once for all (the question) must not carry one's feedback to the
    # other.
    def answer(request: ModelRequest) -> str:
        if request.agent == "utility":
            return "nonsense"
        if request.purpose == Purpose.POLL and request.agent == "alice":
            return "banana"
        return agreeable(request)

    state, _ = start(make_config())
    waiting: dict[str, ModelRequest] = {}
    for _ in range(500):
        decision = decide(state)
        reference = unmemoized(state, monkeypatch)
        assert decision.events == reference.events
        assert decision.calls == reference.calls
        state = decision.state
        addresses = {r.address for r in decision.calls}
        if "p2/r1/t1/poll/alice/2" in addresses and "p2/r1/t1/poll/bob/1" in addresses:
            again = next(r for r in decision.calls if r.address == "p2/r1/t1/poll/alice/2")
            first = next(r for r in decision.calls if r.address == "p2/r1/t1/poll/bob/1")
            assert again.context["feedback"] and first.context["feedback"] is None
            return
        for request in decision.calls:
            if request.address not in waiting:
                waiting[request.address] = request
                state = evolve(state, requested(request))
        for address, request in list(waiting.items()):
            if request.purpose == Purpose.POLL and request.agent == "bob":
                continue  # bob's answer waits
            del waiting[address]
            state = evolve(state, completed(request, answer(request)))
        assert not decision.done
    raise AssertionError("alice was never asked again beside bob's first asking")
