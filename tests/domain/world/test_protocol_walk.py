"""The world's protocol driven in memory (docs/world.md §2–§5): the calls each tick asks, the
drawn order, refusals told the next tick, bad contributions sent back and, after the
attempts, recorded as missing; a wrong announcement recorded as wrong; determinism."""

from __future__ import annotations

import json
from typing import Any

from maai.domain import experiments
from maai.domain.answers import AnswerMissing, AnswerRejected
from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    MemoriesScored,
    OrderDrawn,
    OutcomeComputed,
    PlanChanged,
    RoundStarted,
    WorldEnded,
)
from maai.domain.world.state import evolve, initial_state
from tests.support.world_driver import Responder, drive, load, simulated

CALM = {"error_rate": 0.0}


def game(**overrides: Any) -> WorldConfig:
    agents = [
        {
            "name": "Ann",
            "role": "player",
            "location": "Hall",
            "persona": {"kind": "cooperative", **CALM},
        },
        {
            "name": "Ben",
            "role": "player",
            "location": "Hall",
            "persona": {"kind": "selfish", **CALM},
        },
        {
            "name": "Mod",
            "role": "moderator",
            "location": "Hall",
            "persona": {"kind": "moderator", **CALM},
        },
    ]
    for a in agents:
        a["private_bio"] = f"The secret of {a['name']} is kept well hidden."
        a["plan"] = {
            "location": "Hall",
            "description": f"{a['name']} plays the game",
            "max_ticks": 50,
        }
    data: dict[str, Any] = {
        "experiment": "world",
        "seed": 1,
        "max_ticks": 30,
        "game": {"game_room": "Hall", "contribution_room": "Booth", "turn_order": ["Ann", "Ben"]},
        "world": {"locations": [{"name": "Hall"}, {"name": "Booth"}], "agents": agents},
    }
    data.update(overrides)
    return WorldConfig.model_validate(data)


def scripted(config: WorldConfig, answers: dict[str, str]) -> Responder:
    base = simulated(config)

    def respond(request: ModelRequest) -> str:
        return answers.get(request.address) or base(request)

    return respond


def contribution_tick(config: WorldConfig, player: str) -> int:
    """The tick at which ``player`` contributes in an undisturbed run."""
    run = drive(config)
    return next(e.tick for e in run.of(ContributionRecorded) if e.player == player)


def test_a_calm_game_runs_to_its_announcement() -> None:
    config = game()
    run = drive(config)
    [outcome] = run.of(OutcomeComputed)
    [checked] = run.of(AnnouncementChecked)
    assert checked.matches and checked.computed == outcome.payoffs
    assert [c.player for c in run.of(ContributionRecorded)] == ["Ann", "Ben"]
    [ended] = run.of(WorldEnded)
    assert ended.reason == "game over"
    assert run.state.status == "completed"


def test_each_tick_asks_every_agent_once_and_scores_only_new_observations() -> None:
    config = game()
    run = drive(config)
    ticks = {e.tick for e in run.of(OrderDrawn)}
    for t in ticks:
        asked = {
            r.agent
            for r in run.requests
            if r.address.startswith(f"w/t{t}/") and r.address.endswith("/act/1")
        }
        assert asked == set(config.names), t
        witnessed = {
            name
            for e in run.of(ActionResolved)
            if e.tick == t - 1 and e.outcome == "applied"
            for name in e.witnesses
            if name != e.agent
        }
        scored = {r.agent for r in run.requests if r.address == f"w/t{t}/{r.agent}/importance/1"}
        assert scored == witnessed, t
    # Each scored memory is one witnessed event, with the score given for it.
    for e in run.of(MemoriesScored):
        assert all(
            m.created_tick == e.tick - 1 and 1 <= (m.importance or 0) <= 10 for m in e.memories
        )


def test_actions_are_applied_in_the_drawn_order() -> None:
    run = drive(game())
    orders = {e.tick: e.order for e in run.of(OrderDrawn)}
    by_tick: dict[int, list[str]] = {}
    for e in run.of(ActionResolved):
        by_tick.setdefault(e.tick, []).append(e.agent)
    assert by_tick == orders
    assert len({tuple(o) for o in orders.values()}) > 1  # drawn, not fixed


def test_a_bad_contribution_is_sent_back_with_the_reason_then_read_by_the_utility_agent() -> None:
    config = game()
    t = contribution_tick(config, "Ann")
    slot = f"w/t{t}/Ann/act"
    run = drive(
        config,
        scripted(
            config,
            {
                f"{slot}/1": json.dumps({"action": "contribute", "amount": -3}),
                f"{slot}/2": json.dumps({"action": "contribute", "amount": 25}),
                f"{slot}/3": "I will put in all of it.",
            },
        ),
    )
    rejected = [e.reason for e in run.of(AnswerRejected) if e.slot == slot]
    assert rejected == [
        "-3 is not a whole number of points from 0 to 20",
        "25 is not a whole number of points from 0 to 20",
    ]
    assert "25 is not a whole number" in run.request(f"{slot}/3").input  # told why
    assert any(
        r.agent == UTILITY and r.address.startswith(f"{slot}/3/extract") for r in run.requests
    )
    [ann] = [c for c in run.of(ContributionRecorded) if c.player == "Ann"]
    assert ann.amount == 20


def test_a_contribution_never_made_valid_is_missing_counted_as_zero_and_flagged() -> None:
    config = game()
    t = contribution_tick(config, "Ann")
    slot = f"w/t{t}/Ann/act"
    bad = json.dumps({"action": "contribute", "amount": 99})
    run = drive(config, scripted(config, {f"{slot}/{n}": bad for n in (1, 2, 3)}))
    [missing] = [e for e in run.of(AnswerMissing) if e.slot == slot]
    assert missing.attempts == 3 and "99 is not" in missing.last_reason
    [ann] = [c for c in run.of(ContributionRecorded) if c.player == "Ann"]
    assert ann.amount is None
    [outcome] = run.of(OutcomeComputed)
    assert outcome.missing == ["Ann"] and outcome.contributions["Ann"] == 0
    # The moderator in the room witnesses it, learns of it next tick, and can announce.
    [stated] = [e for e in run.of(ActionResolved) if e.agent == "Ann" and e.kind == "missing"]
    assert stated.witnesses == ["Ann", "Mod"] and "no contribution" in stated.description
    told = [r for r in run.requests if r.address == f"w/t{t + 1}/Mod/act/1"]
    assert told and stated.description in told[0].input
    [checked] = run.of(AnnouncementChecked)
    assert checked.computed == outcome.payoffs


def test_a_wrong_announcement_is_recorded_as_wrong_and_the_outcome_stands() -> None:
    config = game()
    clean = drive(config)
    [announce] = [e for e in clean.of(ActionResolved) if e.kind == "announce"]
    [outcome] = clean.of(OutcomeComputed)
    wrong = {**outcome.payoffs, "Ann": outcome.payoffs["Ann"] + 5}
    address = f"w/t{announce.tick}/Mod/act/1"
    run = drive(
        config,
        scripted(
            config,
            {address: json.dumps({"action": "announce", "payoffs": wrong, "react": "continue"})},
        ),
    )
    [checked] = run.of(AnnouncementChecked)
    assert not checked.matches
    assert checked.computed == outcome.payoffs and checked.announced == wrong
    assert checked.differences == [
        f"Ann: announced {wrong['Ann']:g}, computed {outcome.payoffs['Ann']:.2f}"
    ]


def test_only_one_player_at_a_time_and_only_on_its_turn() -> None:
    config = game()
    # Ben tries to enter the booth at tick 0, when it is Ann's turn.
    run = drive(
        config, scripted(config, {"w/t0/Ben/act/1": json.dumps({"action": "move", "to": "Booth"})})
    )
    [ben] = [e for e in run.of(ActionResolved) if e.tick == 0 and e.agent == "Ben"]
    assert ben.outcome == "refused" and ben.witnesses == ["Ben"]
    assert ben.reason == "it is not your turn to contribute (it is Ann's turn)"
    assert ben.reason in run.request("w/t1/Ben/act/1").input  # told the next tick


def test_capacity_is_checked_against_the_world_as_already_changed() -> None:
    config = load("world_free.yaml")
    data = config.model_dump(mode="json")
    for agent in data["world"]["agents"]:
        agent["persona"] = {"kind": "wanderer", "error_rate": 0.0}
    config = WorldConfig.model_validate(data)
    move = json.dumps({"action": "move", "to": "Cafe"})
    # Jonas starts in the Park with Kira; the Cafe holds two: Iris can't join both.
    answers = {f"w/t0/{a}/act/1": move for a in ("Iris", "Jonas", "Kira")}
    run = drive(config, scripted(config, answers))
    moves = [e for e in run.of(ActionResolved) if e.tick == 0]
    applied = [e.agent for e in moves if e.outcome == "applied"]
    refused = [e for e in moves if e.outcome == "refused"]
    order = run.of(OrderDrawn)[0].order
    assert applied == order[:2]
    assert [e.agent for e in refused] == order[2:]
    assert refused[0].reason == "Cafe is full (at most 2)"


def test_plans_expire_at_their_max_ticks() -> None:
    config = game()
    data = config.model_dump(mode="json")
    data["world"]["agents"][0]["plan"]["max_ticks"] = 2
    run = drive(WorldConfig.model_validate(data))
    expired = [e for e in run.of(PlanChanged) if e.agent == "Ann" and e.status == "expired"]
    assert expired and expired[0].tick == 1


def test_no_prompt_holds_another_agents_private_bio() -> None:
    config = game()
    run = drive(config)
    for request in run.requests:
        if request.agent == UTILITY:
            continue
        text = request.system + request.input
        for other in config.names:
            secret = f"The secret of {other} is kept well hidden."
            assert (secret in text) == (other == request.agent), (request.address, other)


def test_runs_are_deterministic_and_evolve_leaves_its_input_untouched() -> None:
    config = load("world_pgg.yaml")
    first, second = drive(config), drive(config)
    assert [e.model_dump() for e in first.events] == [e.model_dump() for e in second.events]
    state = initial_state()
    for event in first.events:
        before = (dict(state.positions), dict(state.actions), dict(state.memories))
        evolve(state, event)
        assert before == (dict(state.positions), dict(state.actions), dict(state.memories))
        state = evolve(state, event)


def test_every_event_round_trips_through_the_registry() -> None:
    registry = experiments.get("world").registry
    run = drive(load("world_pgg.yaml"))
    for event in run.events:
        type_, version, payload, _ = registry.encode(event)
        assert registry.decode(type_, version, json.loads(json.dumps(payload))) == event


def test_rounds_open_at_a_ticks_start_after_the_last_announcement() -> None:
    config = game(game={"game_room": "Hall", "contribution_room": "Booth", "rounds": 2})
    run = drive(config)
    announced = [e.tick for e in run.of(AnnouncementChecked)]
    opened = [e.tick for e in run.of(RoundStarted)]
    assert len(announced) == 2 and opened == [0, announced[0] + 1]
    [ended] = run.of(WorldEnded)
    assert ended.tick == announced[-1] + 1  # the last tick is played out, then it ends


def test_the_utility_agent_reads_an_announcement_in_words_or_says_it_cannot() -> None:
    config = game()
    clean = drive(config)
    [announce] = [e for e in clean.of(ActionResolved) if e.kind == "announce"]
    [outcome] = clean.of(OutcomeComputed)
    slot = f"w/t{announce.tick}/Mod/act"
    nothing = dict.fromkeys(("action", "to", "text", "amount", "payoffs", "react", "plan"))
    listed = [{"player": p, "payoff": v} for p, v in outcome.payoffs.items()]
    run = drive(
        config,
        scripted(
            config,
            {
                f"{slot}/1": "Hmm, let me think.",
                f"{slot}/1/extract/1": json.dumps({**nothing, "readable": False}),
                f"{slot}/2": "Ann gets what she gets, Ben too.",
                f"{slot}/2/extract/1": json.dumps(
                    {
                        **nothing,
                        "action": "announce",
                        "payoffs": listed,
                        "react": "continue",
                        "readable": True,
                    }
                ),
            },
        ),
    )
    assert "your answer could not be read" in run.request(f"{slot}/2").input
    [checked] = run.of(AnnouncementChecked)
    assert checked.matches and checked.announced == outcome.payoffs
