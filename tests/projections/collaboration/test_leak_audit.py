"""The leak audit of the collaboration game (docs/collaboration.md §3): a planted private
belief, prediction or reasoning of one agent in the other's prompt is found; what the
partner said in public, or words of the prompts echoed in reasoning, are not leaks."""

from __future__ import annotations

import re
from typing import Any

import pytest

from maai.domain.calls import ModelRequest
from maai.domain.collaboration.events import BeliefStated, DecisionMade
from maai.domain.events import Event
from maai.projections.collaboration.leaks import Leak, audit_leaks
from maai.projections.history import history_from_events
from tests.projections.collaboration.driver import drive, simulated_responder
from tests.projections.collaboration.runs import append, at, plant, record, small_config
from tests.projections.tamper import find, with_config


def leaks_of(events: list[Event]) -> list[Leak]:
    return list(audit_leaks(history_from_events(events)).leaks)


@pytest.fixture(scope="module")
def small() -> list[Event]:
    return record(small_config())[0]


def test_a_clean_run_has_no_leak(small: list[Event]) -> None:
    report = audit_leaks(history_from_events(small))
    assert report.ok and report.leaks == ()
    assert report.prompts_checked == 8  # 2 initial, 3 turns, 1 update, 2 decisions
    assert report.items_checked >= 6
    assert set(report.to_json()) == {"run_id", "prompts_checked", "items_checked", "leaks"}


def test_the_partners_reasoning_is_found(small: list[Event]) -> None:
    reasoning = find(small, BeliefStated, lambda b: b.agent == "Ada" and b.step == 0).reasoning
    assert reasoning and len(reasoning) >= 20
    (leak,) = leaks_of(plant(small, at("c/t2/Ben/1"), append(reasoning)))
    assert (leak.agent, leak.owner, leak.kind) == ("Ben", "Ada", "private reasoning")
    assert leak.address == "c/t2/Ben/1" and "Ada" in leak.describe()


def test_the_partners_decision_reasoning_is_found(small: list[Event]) -> None:
    made = find(small, DecisionMade, lambda d: d.agent == "Ben")
    assert made.reasoning
    leaks = leaks_of(plant(small, at("c/Ada/decision/1"), append(made.reasoning)))
    assert [(x.agent, x.owner) for x in leaks] == [("Ada", "Ben")]


def test_the_partners_belief_is_found(small: list[Event]) -> None:
    belief = find(small, BeliefStated, lambda b: b.agent == "Ada" and b.step == 3).belief
    leaks = leaks_of(plant(small, at("c/t4/Ben/1"), append(f"Ada's belief so far: {belief}.")))
    assert [(x.agent, x.owner, x.kind) for x in leaks] == [("Ben", "Ada", "belief or prediction")]


def test_the_partners_prediction_is_found(small: list[Event]) -> None:
    prediction = find(small, BeliefStated, lambda b: b.agent == "Ben" and b.step == 2).prediction
    line = f"Ben's prediction of your belief was {prediction}, and Ben's belief is private."
    leaks = leaks_of(plant(small, at("c/t3/Ada/1"), append(line)))
    assert [(x.agent, x.owner) for x in leaks] == [("Ada", "Ben")]


def test_the_partners_latest_belief_shown_as_initial_is_found(small: list[Event]) -> None:
    ada = [b for b in small if isinstance(b, BeliefStated) and b.agent == "Ada"]
    assert ada[0].belief != ada[-1].belief

    def latest(prompt: str) -> str:
        return re.sub(
            r"(Ada's initial belief, before any message, was )\d+",
            rf"\g<1>{ada[-1].belief}",
            prompt,
        )

    leaks = leaks_of(plant(small, at("c/Ben/decision/1"), latest))
    assert [(x.agent, x.owner) for x in leaks] == [("Ben", "Ada")]


def test_the_partners_initial_belief_is_a_leak_without_disclosure(small: list[Event]) -> None:
    leaks = leaks_of(with_config(small, disclose_initial_belief=False))
    assert sorted((x.agent, x.address) for x in leaks) == [
        ("Ada", "c/Ada/decision/1"),
        ("Ben", "c/Ben/decision/1"),
    ]


def test_the_partners_initial_belief_before_the_decision_is_a_leak(small: list[Event]) -> None:
    initial = find(small, BeliefStated, lambda b: b.agent == "Ada" and b.step == 0).belief
    line = f"Ada's initial belief, before any message, was {initial}."
    leaks = leaks_of(plant(small, at("c/t2/Ben/1"), append(line)))
    assert [(x.agent, x.owner) for x in leaks] == [("Ben", "Ada")]


def chatty(config: Any) -> Any:
    """The simulated participants, except that Ada writes her belief into each message and
    her reasoning echoes the prompt: a rule breach, not a leak."""
    respond = simulated_responder(config)

    def answer(request: ModelRequest) -> str:
        text = respond(request)
        if request.agent != "Ada" or request.purpose == "decision":
            return text
        belief = re.search(r"BELIEF: (\d+)", text)
        assert belief is not None
        text = re.sub(
            r"REASONING: .*",
            "REASONING: Your belief and your reasoning stay private; so I think it over.",
            text,
        )
        if "MESSAGE:" in text:
            text += f" Ada here: my belief is {belief.group(1)}, and Ada's belief is firm."
        return text

    return answer


def test_what_the_partner_says_in_public_is_no_leak() -> None:
    config = small_config()
    events = drive(config, chatty(config))
    report = audit_leaks(history_from_events(events))
    assert report.ok, [leak.describe() for leak in report.leaks]
