"""The world's audits (docs/world.md §9) pass a clean simulated run and catch each planted
breach: wrong witnesses, a forbidden location, an over-full room, two players in the booth, a
contribution out of range, a wrong payoff, a wrong verdict on the announcement, another
agent's private bio in a prompt. And the exports: tables and the event log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from maai.domain.events import Event, ModelCallRequested
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OutcomeComputed,
    PlanChanged,
    TickClosed,
)
from maai.projections.history import History, history_from_events
from maai.projections.world import VIEWS
from tests.support.world_driver import drive, load


@pytest.fixture(scope="module")
def events() -> list[Event]:
    return drive(load("world_pgg.yaml")).events


@pytest.fixture(scope="module")
def free_events() -> list[Event]:
    return drive(load("world_free.yaml")).events


def history(events: list[Event]) -> History:
    return history_from_events(events, "memory")


def tampered(events: list[Event], pick: Callable[[Event], bool], **update: Any) -> list[Event]:
    """A copy of ``events`` with the first event ``pick`` chooses changed."""
    out = list(events)
    i = next(i for i, e in enumerate(out) if pick(e))
    out[i] = out[i].model_copy(update=update)
    return out


def broken(events: list[Event]) -> set[str]:
    report = VIEWS.audit_protocol(history(events))
    return {v.rule for v in report.violations}


def test_clean_runs_pass_every_rule(events: list[Event], free_events: list[Event]) -> None:
    for run in (events, free_events):
        report = VIEWS.audit_protocol(history(run))
        assert report.ok, report.violations
        assert len(report.rules_checked) == 11
        assert VIEWS.audit_leaks(history(run)).ok


def test_a_missing_witness_is_caught(events: list[Event]) -> None:
    def spoken(e: Event) -> bool:
        return isinstance(e, ActionResolved) and e.kind == "speak" and e.outcome == "applied"

    first = next(e for e in events if spoken(e))
    assert isinstance(first, ActionResolved)
    assert broken(tampered(events, spoken, witnesses=first.witnesses[:1])) == {"witnesses"}


def test_a_missing_contribution_the_moderator_did_not_witness_is_caught() -> None:
    # One attempt at an action: a player's wrong first amount stays missing (seed 41).
    run = drive(load("world_pgg.yaml", seed=41, attempts={"action": 1})).events
    assert broken(run) == set()

    def missing(e: Event) -> bool:
        return isinstance(e, ActionResolved) and e.kind == "missing" and len(e.witnesses) > 1

    first = next(e for e in run if missing(e))
    assert isinstance(first, ActionResolved)
    assert broken(tampered(run, missing, witnesses=[first.agent])) == {"witnesses"}


def test_entering_a_forbidden_room_is_caught(free_events: list[Event]) -> None:
    def kira_moves(e: Event) -> bool:
        return isinstance(e, ActionResolved) and e.agent == "Kira" and e.kind == "move"

    found = broken(tampered(free_events, kira_moves, to="Library", outcome="applied"))
    assert "access" in found


def test_a_second_player_in_the_booth_is_caught(events: list[Event]) -> None:
    players = ["Alice", "Bob", "Carla", "Dan"]
    first_in = next(
        e
        for e in events
        if isinstance(e, ActionResolved) and e.kind == "move" and e.to == "Contribution Room"
    )
    assert isinstance(first_in, ActionResolved)
    other = next(p for p in players if p != first_in.agent)

    def others_wait(e: Event) -> bool:
        return (
            isinstance(e, ActionResolved)
            and e.tick == first_in.tick
            and e.agent == other
            and e.position > first_in.position
        ) or (isinstance(e, ActionResolved) and e.tick > first_in.tick and e.agent == other)

    found = broken(
        tampered(events, others_wait, kind="move", to="Contribution Room", outcome="applied")
    )
    assert "capacity" in found


def test_a_contribution_out_of_range_is_caught(events: list[Event]) -> None:
    found = broken(tampered(events, lambda e: isinstance(e, ContributionRecorded), amount=25))
    assert "contributions" in found


def test_a_wrong_payoff_is_caught(events: list[Event]) -> None:
    outcome = next(e for e in events if isinstance(e, OutcomeComputed))
    assert isinstance(outcome, OutcomeComputed)
    wrong = {**outcome.payoffs, "Alice": outcome.payoffs["Alice"] + 0.01}
    found = broken(tampered(events, lambda e: isinstance(e, OutcomeComputed), payoffs=wrong))
    assert "payoffs" in found


def test_a_wrong_verdict_on_the_announcement_is_caught(events: list[Event]) -> None:
    checked = next(e for e in events if isinstance(e, AnnouncementChecked))
    assert isinstance(checked, AnnouncementChecked)
    flipped = tampered(
        events, lambda e: isinstance(e, AnnouncementChecked), matches=not checked.matches
    )
    assert broken(flipped) == {"announcement"}


# --- plans as a queue (§4) --------------------------------------------------------------------


def test_the_shipped_free_world_queues_postpones_and_promotes_plans(
    free_events: list[Event],
) -> None:
    changes = [e for e in free_events if isinstance(e, PlanChanged)]
    assert any(e.status == "set" and (e.place or 0) >= 2 for e in changes)  # three at once
    assert any(e.status == "postponed" for e in changes)
    assert any(e.status == "promoted" for e in changes)


def _promoted(events: list[Event]) -> PlanChanged:
    """The first promotion of a plan that was queued behind another of the same answer."""
    changes = [e for e in events if isinstance(e, PlanChanged)]
    for e in changes:
        siblings = [
            o
            for o in changes
            if o.agent == e.agent and o.status == "set" and o.tick == e.tick and o.index > e.index
        ]
        if e.status == "set" and siblings:
            later = [
                o
                for o in changes
                if o.status == "promoted" and o.agent == e.agent and o.plan == siblings[0].index
            ]
            if later:
                return later[0]
    raise AssertionError("no queued plan was promoted")


def test_a_plan_promoted_out_of_order_is_caught(free_events: list[Event]) -> None:
    promoted = _promoted(free_events)
    events = tampered(
        free_events,
        lambda e: e is promoted,
        description="jump the queue",
        plan=(promoted.plan or 0) + 1,
    )
    assert broken(events) == {"plans"}


def test_a_plan_queued_in_the_wrong_place_is_caught(free_events: list[Event]) -> None:
    def second(e: Event) -> bool:
        return isinstance(e, PlanChanged) and e.status == "set" and e.place == 1

    assert broken(tampered(free_events, second, place=0)) == {"plans"}


def test_a_promotion_left_out_is_caught(free_events: list[Event]) -> None:
    promoted = _promoted(free_events)
    events = [e for e in free_events if e is not promoted]
    assert "plans" in broken(events)


def test_a_plan_outliving_its_max_ticks_is_caught(free_events: list[Event]) -> None:
    first_expired = next(
        e for e in free_events if isinstance(e, PlanChanged) and e.status == "expired"
    )
    # Without its expiry the plan is still current when the tick closes.
    events = [e for e in free_events if e is not first_expired]
    found = broken(events)
    assert "plans" in found
    report = VIEWS.audit_protocol(history(events))
    assert any("outlived its" in v.detail for v in report.violations)


def test_more_plans_than_max_plans_in_one_answer_are_caught(free_events: list[Event]) -> None:
    started = free_events[0]
    config = {**started.config, "max_plans": 2}  # type: ignore[attr-defined]
    events = [started.model_copy(update={"config": config}), *free_events[1:]]
    report = VIEWS.audit_protocol(history(events))
    assert {v.rule for v in report.violations} == {"plans"}
    assert all("more than 2 plans" in v.detail for v in report.violations)


def test_single_tick_plans_queued_behind_each_other_pass() -> None:
    # Each plan lasts one tick from when it became current: the expiries and promotions
    # cascade in one tick, and the audit agrees with the code.
    config = load("world_free.yaml", max_ticks=4)
    data = config.model_dump(mode="json")
    for agent in data["world"]["agents"]:
        agent["plan"]["max_ticks"] = 1
    events = drive(WorldConfig.model_validate(data)).events
    assert any(isinstance(e, TickClosed) for e in events)
    report = VIEWS.audit_protocol(history(events))
    assert report.ok, report.violations


def test_a_queued_plan_in_another_agents_prompt_is_found(free_events: list[Event]) -> None:
    changes = [e for e in free_events if isinstance(e, PlanChanged)]
    own = {n: {e.description for e in changes if e.agent == n} for n in ("Iris", "Jonas", "Kira")}
    # A plan queued behind the current one, planted where its words are not the other's too.
    queued, other = next(
        (e, n)
        for e in changes
        if e.status == "set" and (e.place or 0) >= 1
        for n in own
        if n != e.agent and e.description not in own[n]
    )

    def asked(e: Event) -> bool:
        return isinstance(e, ModelCallRequested) and e.request.agent == other

    first = next(e for e in free_events if asked(e))
    assert isinstance(first, ModelCallRequested)
    request = first.request.model_copy(
        update={"input": first.request.input + "\n" + queued.description}
    )
    report = VIEWS.audit_leaks(history(tampered(free_events, asked, request=request)))
    # Found once per change of that plan (queued, made current, ended), each citing one, and
    # once per other agent that made a plan in the same words.
    found = {(leak.agent, leak.owner, leak.kind) for leak in report.leaks}
    assert (other, queued.agent, "plan") in found
    assert {(agent, kind) for agent, _, kind in found} == {(other, "plan")}


def test_a_private_bio_in_another_agents_prompt_is_found(events: list[Event]) -> None:
    secret = "You want to leave with as many points as you can."  # Bob's private bio

    def alice_asked(e: Event) -> bool:
        return isinstance(e, ModelCallRequested) and e.request.agent == "Alice"

    first = next(e for e in events if alice_asked(e))
    assert isinstance(first, ModelCallRequested)
    request = first.request.model_copy(update={"input": first.request.input + "\n" + secret})
    planted = tampered(events, alice_asked, request=request)
    report = VIEWS.audit_leaks(history(planted))
    assert [(leak.agent, leak.owner, leak.kind) for leak in report.leaks] == [
        ("Alice", "Bob", "private bio")
    ]


def test_tables_and_event_log(events: list[Event]) -> None:
    files = VIEWS.tables([history(events)])
    assert {
        "events.csv",
        "memories.csv",
        "plans.csv",
        "contributions.csv",
        "payoffs.csv",
        "ticks.csv",
        "model_calls.csv",
        "data_dictionary.md",
    } == set(files)
    rows = VIEWS.table_rows(history(events))
    outcome = next(e for e in events if isinstance(e, OutcomeComputed))
    assert isinstance(outcome, OutcomeComputed)
    assert {r["player"]: r["payoff"] for r in rows["payoffs"]} == outcome.payoffs
    assert sum(r["calls"] for r in rows["ticks"]) == len(rows["model_calls"])
    log = VIEWS.transcript(history(events))
    # The shipped seed's moderator announced a wrong payoff: recorded, not corrected.
    assert "announcement of round 1: WRONG: " in log
    assert "(witnesses: " in log
    agent = VIEWS.agent_log(history(events), "Mona")
    assert set(agent["agents"]) == {"Mona"}
    assert agent["agents"]["Mona"]["memories"]


def test_runs_from_before_plan_lists_export_as_they_did(events: list[Event]) -> None:
    # A run of the protocol before plan lists (max_plans null, as runs recorded then read):
    # its plans table has the columns of then, its agent log no plan queue; with a run of
    # today beside it, the table gains the queue's columns (empty for the old run).
    old = history(drive(load("world_pgg.yaml", max_plans=None)).events)
    assert VIEWS.audit_protocol(old).ok
    header = VIEWS.tables([old])["plans.csv"].splitlines()[0]
    assert header == (
        "run_id,agent,index,tick,status,location,description,stop_condition,max_ticks,seq,hash"
    )
    assert "plan_queue" not in VIEWS.agent_log(old, "Mona")["agents"]["Mona"]
    assert "plan_queue" in VIEWS.agent_log(history(events), "Mona")["agents"]["Mona"]
    both = VIEWS.tables([old, history(events)])["plans.csv"].splitlines()[0]
    assert both.startswith("run_id,agent,index,tick,status,plan,place,location")
