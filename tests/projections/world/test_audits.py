"""The world's audits (docs/world.md §9) pass a clean simulated run and catch each planted
breach: wrong witnesses, a forbidden location, an over-full room, two players in the booth, a
contribution out of range, a wrong payoff, a wrong verdict on the announcement, another
agent's private bio in a prompt. And the exports: tables and the event log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from maai.domain.events import Event, ModelCallRequested
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OutcomeComputed,
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
        assert len(report.rules_checked) == 10
        assert VIEWS.audit_leaks(history(run)).ok


def test_a_missing_witness_is_caught(events: list[Event]) -> None:
    def spoken(e: Event) -> bool:
        return isinstance(e, ActionResolved) and e.kind == "speak" and e.outcome == "applied"

    first = next(e for e in events if spoken(e))
    assert isinstance(first, ActionResolved)
    assert broken(tampered(events, spoken, witnesses=first.witnesses[:1])) == {"witnesses"}


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
