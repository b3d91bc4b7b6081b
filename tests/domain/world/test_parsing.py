"""Reading the world's answers (docs/world.md §4, §5): a bad plan, speech to someone absent
and a contribution out of bounds are sent back with the reason; words the parser cannot
read are undecided (the utility agent is asked); nothing is defaulted."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from maai.domain.reading import Invalid, Parsed, Undecided
from maai.domain.world.parsing import ActView, read_action, read_amount, read_scores
from tests.support.world_views import player_view

PLAYER = player_view(
    [
        {"name": "Hall"},
        {"name": "Booth", "allowed": ["Ann", "Mod"]},
        {"name": "Office", "allowed": ["Mod"]},
    ]
)


def read(data: dict[str, Any] | str, view: ActView = PLAYER) -> Any:
    return read_action(data if isinstance(data, str) else json.dumps(data), view)


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        (0, Parsed(0)),
        (20, Parsed(20)),
        ("7", Parsed(7)),
        (12.0, Parsed(12)),
        (-3, Invalid("-3 is not a whole number of points from 0 to 20")),
        (25, Invalid("25 is not a whole number of points from 0 to 20")),
        (5.5, Invalid("5.5 is not a whole number of points from 0 to 20")),
        ("all of it", Undecided("the amount 'all of it' is not a number")),
        (None, Invalid("'amount' must be a whole number of points from 0 to 20")),
        (True, Invalid("'amount' must be a whole number of points from 0 to 20")),
    ],
)
def test_a_contribution_is_a_whole_number_within_the_endowment(amount: Any, expected: Any) -> None:
    assert read_amount(amount, 20) == expected


def test_a_contribution_action_carries_its_amount() -> None:
    assert read({"action": "contribute", "amount": 8}) == Parsed(
        {"action": "contribute", "amount": 8}
    )
    assert read({"action": "contribute", "amount": 25}) == Invalid(
        "25 is not a whole number of points from 0 to 20"
    )
    assert isinstance(read({"action": "contribute", "amount": "all of it"}), Undecided)


def test_an_answer_without_json_is_undecided() -> None:
    assert read("I will put in all of it.") == Undecided("no JSON object in the answer")


def test_json_in_a_code_fence_or_among_words_is_read() -> None:
    text = 'Sure.\n```json\n{"action": "wait"}\n```'
    assert read(text) == Parsed({"action": "wait"})
    assert read('I will wait: {"action": "wait"} ok') == Parsed({"action": "wait"})


@pytest.mark.parametrize(
    ("to", "reason"),
    [
        ("Moon Base", "there is no location called 'Moon Base' (the locations are: Hall, Booth"),
        ("Office", "you may not enter Office"),
        ("Hall", "you are already in Hall"),
        (None, "name the location"),
    ],
)
def test_a_move_must_go_somewhere_the_agent_may_enter(to: Any, reason: str) -> None:
    result = read({"action": "move", "to": to})
    assert isinstance(result, Invalid) and result.reason.startswith(reason)


def test_speech_goes_to_someone_present_or_all() -> None:
    assert read({"action": "speak", "to": "Ben", "text": "Hi"}) == Parsed(
        {"action": "speak", "to": "Ben", "text": "Hi"}
    )
    assert read({"action": "speak", "text": "Hello all"}) == Parsed(
        {"action": "speak", "to": "all", "text": "Hello all"}
    )
    assert read({"action": "speak", "to": "Mod", "text": "Hi"}) == Invalid(
        "Mod is not here in Hall (present: Ben)"
    )
    assert read({"action": "speak", "to": "Ben", "text": " "}) == Invalid(
        "say something: 'text' is empty"
    )


def test_actions_follow_the_role() -> None:
    assert isinstance(read({"action": "announce", "payoffs": {"Ann": 1}}), Invalid)
    moderator = replace(PLAYER, agent="Mod", role="moderator", endowment=None)
    assert read({"action": "announce", "payoffs": {"Ann": 21.5}, "text": "x"}, moderator) == (
        Parsed({"action": "announce", "payoffs": {"Ann": 21.5}, "text": "x"})
    )
    assert isinstance(read({"action": "contribute", "amount": 3}, moderator), Invalid)
    assert read({"action": "announce", "payoffs": {"Ann": "lots"}}, moderator) == Invalid(
        "the payoff of Ann must be a number"
    )


def plan(location: str, description: str = "do something there") -> dict[str, Any]:
    return {"location": location, "description": description}


def checked(location: str, description: str = "do something there") -> dict[str, Any]:
    return {
        "location": location,
        "description": description,
        "stop_condition": "",
        "max_ticks": None,
    }


def test_an_agent_without_a_plan_must_make_one_somewhere_it_may_go() -> None:
    planless = replace(PLAYER, has_plan=False)
    assert read({"action": "wait"}, planless) == Invalid(
        "you have no current plan: include 'plans' with what you will do next"
    )
    bad = {"action": "wait", "plan": plan("Office", "sneak in")}
    assert read(bad, planless) == Invalid("plan: you may not enter Office")
    # A single plan object is still accepted: a list of one.
    good = {"action": "wait", "plan": plan("Booth", "contribute")}
    assert read(good, planless) == Parsed(
        {"action": "wait", "plans": [checked("Booth", "contribute")]}
    )
    assert isinstance(read({"action": "done"}, planless), Invalid)  # no plan to end


def test_a_planning_answer_gives_up_to_max_plans_plans_in_order() -> None:
    planless = replace(PLAYER, has_plan=False)
    three = {"action": "wait", "plans": [plan("Booth"), plan("Hall", "rest"), plan("Booth")]}
    assert read(three, planless) == Parsed(
        {"action": "wait", "plans": [checked("Booth"), checked("Hall", "rest"), checked("Booth")]}
    )
    # 'plan' holding a list is read as the list.
    listed = {"action": "wait", "plan": [plan("Hall", "rest")]}
    assert read(listed, planless) == Parsed({"action": "wait", "plans": [checked("Hall", "rest")]})


@pytest.mark.parametrize(
    ("plans", "reason"),
    [
        (
            [plan("Hall"), plan("Moon"), plan("Booth")],
            "plan 2: there is no location called 'Moon' (the locations are: Hall, Booth, Office)",
        ),
        ([plan("Hall"), plan("Office")], "plan 2: you may not enter Office"),
        ([plan("Hall"), {"location": "Hall"}], "plan 2: give a description"),
        (
            [plan("Hall"), "go home"],
            "plan 2 must be an object with location, description, stop_condition",
        ),
        (
            [{**plan("Hall"), "max_ticks": 0}],
            "plan 1: max_ticks must be a whole number from 1 to 1000",
        ),
        ([plan("Hall")] * 4, "give at most 3 plans at a time, not 4"),
        ([], "you have no current plan: include 'plans' with what you will do next"),
        ("the hall", "'plans' must be a list of plans, each with location and description"),
    ],
)
def test_a_bad_plan_list_is_sent_back_naming_the_plan_at_fault(plans: Any, reason: str) -> None:
    planless = replace(PLAYER, has_plan=False)
    assert read({"action": "wait", "plans": plans}, planless) == Invalid(reason)


def test_max_plans_comes_from_the_view() -> None:
    one = replace(PLAYER, has_plan=False, max_plans=1)
    two = {"action": "wait", "plans": [plan("Hall"), plan("Booth")]}
    assert read(two, one) == Invalid("give at most 1 plans at a time, not 2")


def test_plans_are_given_once_and_an_empty_list_is_no_plans() -> None:
    both = {"action": "wait", "plan": plan("Hall"), "plans": [plan("Booth")]}
    assert read(both) == Invalid(
        "give your plans once, as 'plans' (a list), not both 'plan' and 'plans'"
    )
    # With a current plan, an empty list asks for nothing.
    assert read({"action": "wait", "plans": []}) == Parsed({"action": "wait"})


def test_react_is_required_when_asked_and_postpone_needs_a_plan() -> None:
    asked = replace(PLAYER, react_asked=True)
    assert isinstance(read({"action": "wait"}, asked), Invalid)
    assert read({"action": "wait", "react": "continue"}, asked) == Parsed(
        {"action": "wait", "react": "continue"}
    )
    assert read({"action": "wait", "react": "postpone"}, asked) == Invalid(
        "to postpone your plan, give the new 'plans' that go first"
    )
    assert read({"action": "wait", "react": "postpone", "plans": []}, asked) == Invalid(
        "to postpone your plan, give the new 'plans' that go first"
    )
    postponed = {"action": "wait", "react": "postpone", "plans": [plan("Booth"), plan("Hall")]}
    assert read(postponed, asked) == Parsed(
        {"action": "wait", "react": "postpone", "plans": [checked("Booth"), checked("Hall")]}
    )


def test_done_and_failed_go_with_continue() -> None:
    asked = replace(PLAYER, react_asked=True)
    assert read({"action": "done", "react": "continue"}, asked) == Parsed(
        {"action": "done", "react": "continue"}
    )
    for react, extra in (("cancel", {}), ("postpone", {"plans": [plan("Hall")]})):
        assert read({"action": "failed", "react": react, **extra}, asked) == Invalid(
            "'failed' ends your current plan: with it, 'react' must be 'continue'"
        )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[3, 7]", Parsed([3, 7])),
        ("My ratings: [1, 10]", Parsed([1, 10])),
        ("[3]", Invalid("give exactly 2 scores, one per observation, as a JSON list")),
        ("[0, 4]", Invalid("each score must be a whole number from 1 to 10")),
        ("[11, 4]", Invalid("each score must be a whole number from 1 to 10")),
        ("three and seven", Undecided("no list of scores in the answer")),
    ],
)
def test_importance_scores_are_one_per_observation(text: str, expected: Any) -> None:
    assert read_scores(text, 2) == expected
