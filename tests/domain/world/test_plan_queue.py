"""An agent's plans as a queue (docs/world.md §4): a planning answer gives up to ``max_plans``
plans, queued in order; the next becomes current when the one before is done, failed,
cancelled or expired (recorded as ``promoted``); ``postpone`` puts the new plans first; a
plan list with one bad plan is sent back naming it. Runs recorded before queues still decode,
encode and fold as they were."""

from __future__ import annotations

import json
from typing import Any

from maai.domain import experiments
from maai.domain.answers import AnswerRejected
from maai.domain.calls import ModelRequest
from maai.domain.world.config import WorldConfig, recorded_config
from maai.domain.world.events import PlanChanged
from maai.domain.world.state import requeue
from tests.support.world_driver import Drive, drive

WAIT = {"action": "wait"}


def town(**overrides: Any) -> WorldConfig:
    data: dict[str, Any] = {
        "experiment": "world",
        "seed": 4,
        "max_ticks": 8,
        "world": {
            "locations": [{"name": "Home"}, {"name": "Park"}, {"name": "Shop"}],
            "agents": [
                {"name": "Ann", "location": "Home"},
                {
                    "name": "Ben",
                    "location": "Home",
                    "plan": {"location": "Home", "description": "stay home", "max_ticks": 50},
                },
            ],
        },
    }
    data.update(overrides)
    return WorldConfig.model_validate(data)


def plan(location: str, description: str, max_ticks: int = 20) -> dict[str, Any]:
    return {"location": location, "description": description, "max_ticks": max_ticks}


def scripted(answers: dict[str, Any]) -> Any:
    """Answers by address; every other act is a wait, every importance call scores each
    observation 5. An act without 'react' continues when react is asked."""

    def respond(request: ModelRequest) -> str:
        if request.purpose == "importance":
            return json.dumps([5] * len(request.context["observations"]))
        answer = answers.get(request.address, WAIT)
        if request.context.get("react_asked"):
            answer = {"react": "continue", **answer}
        return json.dumps(answer)

    return respond


def changes(run: Drive, agent: str = "Ann") -> list[tuple[int, str, str, int | None, int | None]]:
    return [
        (e.tick, e.status, e.description, e.place, e.plan)
        for e in run.of(PlanChanged)
        if e.agent == agent
    ]


THREE = [plan("Park", "walk"), plan("Shop", "buy bread"), plan("Home", "cook")]


def test_the_plans_of_a_planning_answer_are_queued_and_promoted_in_order() -> None:
    run = drive(
        town(),
        scripted(
            {
                "w/t0/Ann/act/1": {"action": "wait", "plans": THREE},
                "w/t2/Ann/act/1": {"action": "done"},
                "w/t4/Ann/act/1": {"action": "failed"},
            }
        ),
    )
    assert changes(run)[:7] == [
        (0, "set", "walk", 0, 0),  # current: the first, at place 0
        (0, "set", "buy bread", 1, 1),
        (0, "set", "cook", 2, 2),
        (2, "done", "walk", None, 0),
        (2, "promoted", "buy bread", None, 1),
        (4, "failed", "buy bread", None, 1),
        (4, "promoted", "cook", None, 2),
    ]
    # Each prompt shows the current plan and, after it, the queued ones, in order.
    prompt = run.request("w/t1/Ann/act/1").input
    assert "Your current plan: walk, in Park" in prompt
    queued = prompt.split("Your plans after it, in order:")[1]
    assert queued.index("buy bread, in Shop") < queued.index("cook, in Home")
    assert "after it" not in run.request("w/t5/Ann/act/1").input  # the last one is current


def test_the_prompt_asks_for_up_to_max_plans_plans() -> None:
    run = drive(
        town(max_plans=2), scripted({"w/t0/Ann/act/1": {"action": "wait", "plans": THREE[:2]}})
    )
    first = run.request("w/t0/Ann/act/1")
    assert '"plans": [{"location": "<place>"' in first.input
    assert "with up to 2 plans, in the order you will carry them out" in first.input
    assert first.context["max_plans"] == 2


def test_more_than_max_plans_or_a_bad_plan_is_sent_back_then_corrected() -> None:
    bad = [plan("Park", "walk"), plan("Moon", "fly"), plan("Home", "cook")]
    run = drive(
        town(max_plans=2),
        scripted(
            {
                "w/t0/Ann/act/1": {"action": "wait", "plans": THREE},
                "w/t0/Ann/act/2": {"action": "wait", "plans": bad[:2]},
                "w/t0/Ann/act/3": {"action": "wait", "plans": [plan("Park", "walk")]},
            }
        ),
    )
    reasons = [e.reason for e in run.of(AnswerRejected) if e.agent == "Ann"]
    assert reasons == [
        "give at most 2 plans at a time, not 3",
        "plan 2: there is no location called 'Moon' (the locations are: Home, Park, Shop)",
    ]
    assert reasons[1] in run.request("w/t0/Ann/act/3").input  # told why
    assert changes(run)[0] == (0, "set", "walk", 0, 0)


def test_postpone_puts_the_new_plans_first_and_the_old_plan_resumes_after_them() -> None:
    speak = {"action": "speak", "to": "all", "text": "Come and help me!"}
    run = drive(
        town(),
        scripted(
            {
                "w/t0/Ann/act/1": {"action": "wait", "plans": [plan("Home", "read")]},
                "w/t1/Ben/act/1": {**speak, "react": "continue"},
                "w/t2/Ann/act/1": {
                    "action": "wait",
                    "react": "postpone",
                    "plans": [plan("Home", "help Ben"), plan("Shop", "buy glue")],
                },
                "w/t3/Ann/act/1": {"action": "done"},
                "w/t4/Ann/act/1": {"action": "done"},
            }
        ),
    )
    assert changes(run)[:7] == [
        (0, "set", "read", 0, 0),
        (2, "postponed", "help Ben", 0, 1),
        (2, "postponed", "buy glue", 1, 2),
        (3, "done", "help Ben", None, 1),
        (3, "promoted", "buy glue", None, 2),
        (4, "done", "buy glue", None, 2),
        (4, "promoted", "read", None, 0),  # the postponed plan resumes
    ]


def test_cancel_promotes_the_next_plan_and_new_plans_go_last() -> None:
    speak = {"action": "speak", "to": "all", "text": "The park is closed today."}
    run = drive(
        town(),
        scripted(
            {
                "w/t0/Ann/act/1": {"action": "wait", "plans": THREE[:2]},
                "w/t1/Ben/act/1": {**speak, "react": "continue"},
                "w/t2/Ann/act/1": {
                    "action": "wait",
                    "react": "cancel",
                    "plans": [plan("Home", "nap")],
                },
            }
        ),
    )
    assert changes(run)[2:5] == [
        (2, "cancelled", "walk", None, 0),
        (2, "promoted", "buy bread", None, 1),
        (2, "set", "nap", 1, 4),  # after the plans it already had
    ]


def test_an_expired_plan_gives_way_to_the_next_whose_ticks_count_from_then() -> None:
    run = drive(
        town(),
        scripted(
            {
                "w/t0/Ann/act/1": {
                    "action": "wait",
                    "plans": [plan("Home", "a", 2), plan("Home", "b", 3)],
                }
            }
        ),
    )
    assert changes(run)[2:5] == [
        (1, "expired", "a", None, 0),
        (1, "promoted", "b", None, 1),
        (3, "expired", "b", None, 1),  # promoted in tick 1, it lasts ticks 1, 2 and 3
    ]
    assert "(stop when: -; 2 step(s) left)" in run.request("w/t2/Ann/act/1").input


def test_plans_are_private_to_their_agent() -> None:
    run = drive(town(), scripted({"w/t0/Ann/act/1": {"action": "wait", "plans": THREE}}))
    for request in run.requests:
        if request.agent == "Ben":
            assert "buy bread" not in request.input and "buy bread" not in request.system


# --- runs recorded before queues ------------------------------------------------------------

OLD_SET = {
    "tick": 0,
    "agent": "Ann",
    "index": 0,
    "status": "set",
    "location": "Park",
    "description": "walk",
    "stop_condition": "",
    "max_ticks": 4,
}


def test_an_old_plan_change_decodes_and_encodes_as_it_was_stored() -> None:
    registry = experiments.get("world").registry
    event = registry.decode("world.plan_changed", 1, dict(OLD_SET))
    assert isinstance(event, PlanChanged) and event.place is None and event.plan is None
    assert registry.encode(event)[2] == OLD_SET
    new = event.model_copy(update={"place": 0, "plan": 0})
    assert registry.encode(new)[2] == {**OLD_SET, "place": 0, "plan": 0}


def test_old_plan_changes_fold_as_they_did() -> None:
    first = PlanChanged.model_validate(OLD_SET)
    later = first.model_copy(update={"index": 1, "description": "later"})
    urgent = first.model_copy(update={"index": 2, "status": "postponed", "description": "now"})
    queue = requeue(requeue(requeue((), first), later), urgent)
    assert [p.description for p in queue] == ["now", "walk", "later"]
    done = first.model_copy(update={"index": 3, "status": "done", "description": "now"})
    assert [p.description for p in requeue(queue, done)] == ["walk", "later"]


# --- the protocol before plan lists (max_plans: null), as runs recorded then replay --------


def test_a_run_recorded_before_plan_lists_gets_no_max_plans() -> None:
    snapshot = town().model_dump(mode="json")
    assert recorded_config(snapshot).max_plans == 3
    del snapshot["max_plans"]
    old = recorded_config(snapshot)
    assert old.max_plans is None and not old.plan_lists


def test_before_plan_lists_an_answer_gives_one_plan_and_no_queue_is_recorded() -> None:
    speak = {"action": "speak", "to": "all", "text": "Come and help me!"}
    run = drive(
        town(max_plans=None),
        scripted(
            {
                "w/t0/Ann/act/1": {"action": "wait", "plans": THREE},  # not read: no 'plan'
                "w/t0/Ann/act/2": {"action": "wait", "plan": plan("Home", "read")},
                "w/t1/Ben/act/1": {**speak, "react": "continue"},
                "w/t2/Ann/act/1": {
                    "action": "wait",
                    "react": "postpone",
                    "plan": plan("Home", "help Ben"),
                },
                "w/t3/Ann/act/1": {"action": "done"},
            }
        ),
    )
    first = run.request("w/t0/Ann/act/1")
    assert 'You have no current plan: add "plan": {"location": "<place>"' in first.input
    assert "max_plans" not in first.context and "queued" not in first.context
    assert [e.reason for e in run.of(AnswerRejected) if e.agent == "Ann"][:1] == [
        "you have no current plan: include a 'plan' for what you will do next"
    ]
    assert changes(run) == [
        (0, "set", "read", None, None),
        (2, "postponed", "help Ben", None, None),
        (3, "done", "help Ben", None, None),  # and 'read' is current again, unannounced
    ]
    assert "promoted" not in {e.status for e in run.of(PlanChanged)}
    assert "after it" not in run.request("w/t3/Ann/act/1").input
