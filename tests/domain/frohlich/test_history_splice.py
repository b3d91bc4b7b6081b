"""A Phase-2 request is built around a mark and the public history put in its place
(``phase2._showing_history``), so that the history is copied once. The requests made so are
exactly those built around the history itself, found in the input afterwards: same fields,
same hash cuts, same hash, under either request hash version, also where a participant's own
text holds the mark or the history's first characters (the splice then stands aside)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from maai.domain.calls import ModelRequest, _span, first_after
from maai.domain.frohlich import phase2, render
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State, evolve
from tests.support.answering import answer_each
from tests.support.driver import agreeable, make_config, start


def built_around_the_history(
    state: State, language: str, build: Callable[[str], ModelRequest]
) -> ModelRequest:
    """The reference: the request rendered with the history's text, the block looked for."""
    version = state.started.hash_version if state.started is not None else 1
    request = build(render.public_history_text(state.public, language))
    block = render.public_history_block(state.public, language) if state.public else None
    return request.sharing(block, "history", cut=version >= 2)


def slow_to_agree(request: ModelRequest) -> str:
    """No vote before round 3; alice's memories hold the mark, bob's the round's history (the
    first characters of the public history, before the history in his later prompts)."""
    if request.purpose == Purpose.STATEMENT and "/r3/" not in request.address:
        return f"I, {request.agent}, lean to (c) {phase2.HISTORY_MARK} but let us talk."
    if request.purpose == Purpose.MEMORY and request.address.startswith("p2/"):
        if request.agent == "alice":
            return f"I keep {phase2.HISTORY_MARK} in mind."
        if request.agent == "bob":
            return f"What was said: {request.context['outcome']}"
    return agreeable(request)


def plainly_slow(request: ModelRequest) -> str:
    """``slow_to_agree`` without the mark in what is said: a history it can splice."""
    return slow_to_agree(request).replace(phase2.HISTORY_MARK, "this")


def decision_states(
    version: int | None, answer: Callable[[ModelRequest], str] = slow_to_agree
) -> list[State]:
    """Every state a run answered by ``answer`` decides at."""
    states: list[State] = []
    state, _ = start(make_config(), version)
    while True:
        states.append(state)
        decision = decide(state)
        state = decision.state
        if decision.done:
            assert state.status == "completed"
            return states
        state = answer_each(state, evolve, decision.calls, answer)


@pytest.mark.parametrize("version", [None, 2])
def test_spliced_requests_equal_requests_built_around_the_history(
    version: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    spliced: list[tuple[bool, bool]] = []  # (a history shown, put in place of the mark)
    sharing = ModelRequest.sharing

    def spy(self: ModelRequest, *args: Any, **kwargs: Any) -> ModelRequest:
        spliced.append((args[0] is not None, kwargs.get("span") is not None))
        return sharing(self, *args, **kwargs)

    monkeypatch.setattr(ModelRequest, "sharing", spy)
    compared = 0
    for state in decision_states(version):
        fast = decide(state)
        with monkeypatch.context() as patch:
            patch.setattr(phase2, "_showing_history", built_around_the_history)
            reference = decide(state)
        assert fast.events == reference.events
        assert fast.calls == reference.calls
        for ours, theirs in zip(fast.calls, reference.calls, strict=True):
            assert ours.hash_cuts == theirs.hash_cuts
            assert ours.request_hash() == theirs.request_hash()
            compared += ours.address.startswith("p2/r") and ours.purpose != Purpose.MEMORY
    assert compared > 10
    assert (True, True) in spliced and (True, False) in spliced  # both ways were taken


@pytest.mark.parametrize("version", [None, 2])
def test_a_history_shown_before_its_place_is_the_one_its_cut_names(version: int | None) -> None:
    states = decision_states(version, plainly_slow)
    state = next(s for s in reversed(states) if len(s.public) > 3)
    block = render.public_history_block(state.public, "en")
    head = block.text[:64]
    for own in (
        "nothing of it",
        block.text,  # the whole history, in the request's own text before its place
        head,
        head[:-1],
        block.text + phase2.HISTORY_MARK,
        "x" * 200,
    ):

        def build(history: str, own: str = own) -> ModelRequest:
            return ModelRequest(
                address="p2/r1/alice/statement",
                agent="alice",
                purpose=Purpose.STATEMENT,
                model="m",
                system="s",
                input=f"memory: {own}\n---\n{history}\nend",
                context={"history": []},
            )

        ours = phase2._showing_history(state, "en", build)
        theirs = built_around_the_history(state, "en", build)
        assert ours == theirs
        assert ours.request_hash() == theirs.request_hash()


def test_first_after_only_where_the_block_is_first_found_after_the_text_before() -> None:
    # Two letters and repeating blocks: heads that start before the block's place and run
    # into it, and whole blocks found there, are common.
    rng = random.Random(12)
    outcomes: set[tuple[bool, bool]] = set()
    for _ in range(3000):
        unit = "".join(rng.choice("ab") for _ in range(rng.randint(1, 4)))
        block = (unit * 80)[: rng.randint(1, 150)]
        before = "".join(rng.choice("ab") for _ in range(rng.randint(0, 12)))
        text = before + block + "".join(rng.choice("ab") for _ in range(rng.randint(0, 5)))
        there = _span(text, block) == (len(before), len(before) + len(block))
        if first_after(before, block):
            assert there, (before, block)
        outcomes.add((first_after(before, block), there))
    # Both said where it holds and not said where the block is found first inside ``before``
    # (or running from it into its place).
    assert {(True, True), (False, False)} <= outcomes
