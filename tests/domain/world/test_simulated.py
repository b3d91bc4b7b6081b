"""The world's simulated participants (docs/world.md §7): deterministic, answering as their
persona says, and, in the shipped configs, making each mistake a validation path exists for."""

from __future__ import annotations

import json
from collections import Counter

from maai.domain.answers import AnswerAccepted, AnswerRejected, AnswerUndecided
from maai.domain.calls import ModelRequest
from maai.domain.world.events import AnnouncementChecked, ContributionRecorded, PlanChanged
from maai.domain.world.simulated import SimulatedUtility
from tests.support.world_driver import drive, load


def test_answers_are_deterministic() -> None:
    config = load("world_pgg.yaml")
    first, second = drive(config), drive(config)
    assert [r.address for r in first.requests] == [r.address for r in second.requests]
    assert first.events == second.events


def test_cooperative_players_contribute_more_than_selfish_ones() -> None:
    run = drive(load("world_pgg_priming.yaml"))
    kinds = {"Alice": "cooperative", "Carla": "cooperative", "Bob": "selfish", "Dan": "selfish"}
    given: dict[str, list[int]] = {"cooperative": [], "selfish": []}
    for c in run.of(ContributionRecorded):
        assert c.amount is not None
        given[kinds[c.player]].append(c.amount)
    assert min(given["cooperative"]) >= 12 and max(given["selfish"]) <= 6


def test_the_shipped_configs_run_every_validation_path() -> None:
    pgg = drive(load("world_pgg.yaml"))
    reasons = [e.reason for e in pgg.of(AnswerRejected)]
    assert any("is not a whole number of points from 0 to 20" in r for r in reasons)
    assert any(e.kind == "act" for e in pgg.of(AnswerUndecided))  # "all of it"
    assert any(e.source == "utility" for e in pgg.of(AnswerAccepted))
    assert any("is not here" in r for r in reasons)
    assert any("scores" in r for r in reasons)
    [checked] = pgg.of(AnnouncementChecked)
    assert not checked.matches  # the moderator erred; the check recorded it
    free = drive(load("world_free.yaml"))
    free_reasons = [e.reason for e in free.of(AnswerRejected)]
    # A wanderer's list of plans with a bad one, named by its place in the list.
    assert any(
        r.startswith(("plan 2: ", "plan 3: ")) and "no location called 'Moon Base'" in r
        for r in free_reasons
    )


def test_wanderers_make_several_plans_and_postpone_them() -> None:
    changes = drive(load("world_free.yaml")).of(PlanChanged)
    per_answer = Counter((e.agent, e.tick) for e in changes if e.status == "set")
    assert max(per_answer.values()) == 3
    statuses = {e.status for e in changes}
    assert {"postponed", "promoted", "done", "expired"} <= statuses
    # Players and the moderator give one plan at a time.
    pgg = drive(load("world_pgg.yaml")).of(PlanChanged)
    assert max(Counter((e.agent, e.tick) for e in pgg if e.status == "set").values()) == 1


def test_the_simulated_utility_agent_reads_a_contribution_in_words() -> None:
    def read(text: str) -> dict[str, object]:
        request = ModelRequest(
            address="w/t1/Ann/act/1/extract/1",
            agent="utility",
            purpose="extract",
            model="simulated",
            system="",
            input="",
            context={"kind": "act", "text": text, "endowment": 20, "react_asked": False},
        )
        return json.loads(SimulatedUtility(1).answer(request, None))

    assert read("I will put in all of it.")["amount"] == 20
    assert read("I will put in nothing at all.")["amount"] == 0
    assert read("Seven, I think: 7")["amount"] == 7
    assert read("Let me think about it.")["readable"] is False
