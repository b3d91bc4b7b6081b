"""The conditions beyond the base protocol (docs/frohlich.md "Conditions"): original-values mode
and the manipulator — what the run records and shows, and audits that fail when either is
applied wrongly."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from maai.domain.calls import ModelRequest
from maai.domain.config import ConfigError
from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich import manipulator
from maai.domain.frohlich.events import (
    DistributionsDrawn,
    ManipulatorTargetChosen,
    PayoffAwarded,
    StepStarted,
)
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.summary import summarize
from maai.domain.frohlich.types import Certainty, IncomeClass, Principle, Ranking
from maai.projections.frohlich import reference
from maai.projections.frohlich.leaks import audit_leaks
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.frohlich.table_rows import conditions
from maai.projections.history import history_from_events
from tests.projections.frohlich.recording import simulated_responder
from tests.projections.tamper import find, index_of, replaced
from tests.support.driver import agreeable, drive, make_config

SITUATION_B_CHANCES = "high 6.306%, medium-high 20.8333%, medium 28.3333%"


def _broken(events: list[Event]) -> set[str]:
    return {v.rule for v in audit_protocol(history_from_events(events)).violations}


# --- original-values mode ----------------------------------------------------------------------


def _average_chooser(request: ModelRequest) -> str:
    if request.purpose == Purpose.CHOICE:
        return "I choose (b), maximizing the average income."
    return agreeable(request)


@pytest.fixture(scope="module")
def original_run() -> tuple[list[Event], list[ModelRequest]]:
    _, events, requests = drive(make_config(original_values=True), _average_chooser)
    return events, requests


def test_original_values_rounds_play_situations_a_to_d(
    original_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = original_run
    drawn = [e for e in events if isinstance(e, DistributionsDrawn) and e.scope == "phase1"]
    assert len(drawn) == 12  # three agents, four rounds
    for event in drawn:
        assert event.round is not None
        assert event.situation == "ABCD"[event.round - 1]
        assert event.label.endswith(f"r{event.round}/situation")
        assert (event.multiplier, event.fixed) == (1.0, True)
    c = next(e for e in drawn if e.situation == "C")
    assert c.distributions[0] == [100_000, 30_000, 20_000, 15_000, 13_000]
    assert c.class_probabilities is not None
    assert c.class_probabilities[IncomeClass.MEDIUM] == 0.583333
    # Phase 2 keeps the base set times its multiplier, with no situation.
    phase2 = next(e for e in events if isinstance(e, DistributionsDrawn) and e.scope == "phase2")
    assert phase2.situation is None and "situation" not in phase2.model_dump()


def test_averages_are_weighted_by_the_situation(
    original_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    # Situation C: with its own chances (b) picks Dist. 2 (average $22,350); weighted by the
    # default chances Dists. 1 and 2 tie at $23,050 and the tie would go to Dist. 1.
    events, _ = original_run
    paid = [
        e for e in events if isinstance(e, PayoffAwarded) and e.scope == "phase1" and e.round == 3
    ]
    assert len(paid) == 3
    assert {p.distribution for p in paid} == {2}
    situation_c_dist_2 = [35_000, 30_000, 25_000, 20_000, 8_000]
    for p in paid:
        assert p.income == situation_c_dist_2[list(IncomeClass).index(p.income_class)]


def test_the_choice_prompt_shows_the_situations_chances(
    original_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    _, requests = original_run
    round2 = [r for r in requests if r.address.startswith("p1/alice/r2/choice")]
    assert round2 and SITUATION_B_CHANCES in round2[0].input
    round1 = next(r for r in requests if r.address.startswith("p1/alice/r1/choice"))
    assert "high 10%, medium-high 20%, medium 40%" in round1.input


def test_a_base_run_shows_no_chances_and_names_no_situation() -> None:
    _, events, requests = drive(make_config(), agreeable)
    choice = next(r for r in requests if r.address.startswith("p1/alice/r2/choice"))
    assert "its own chance" not in choice.input
    assert all(e.situation is None for e in events if isinstance(e, DistributionsDrawn))


def test_a_simulated_original_values_run_passes_every_audit() -> None:
    config = make_config(original_values=True, seed=11)
    _, events, _ = drive(config, simulated_responder(config))
    history = history_from_events(events)
    assert audit_protocol(history).violations == ()
    assert audit_leaks(history).leaks == ()


def _paid_by_base_chances(events: list[Event]) -> list[Event]:
    # What code that forgot the situation's chances would record: round 3's (b) paid from
    # Dist. 1 (the default chances' tie), with the income that goes with it.
    paid = find(events, PayoffAwarded, lambda p: p.scope == "phase1" and p.round == 3)
    row = {cf.distribution: cf for cf in paid.counterfactuals}[1]
    return replaced(
        events,
        PayoffAwarded,
        lambda p: p is paid,
        distribution=1,
        income=row.income,
        payoff_cents=row.payoff_cents,
        balance_cents=paid.balance_cents - paid.payoff_cents + row.payoff_cents,
    )


def test_the_audit_recomputes_picks_with_the_situations_chances(
    original_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = original_run
    assert _broken(events) == set()
    broken = _broken(_paid_by_base_chances(events))
    assert {"principle_applied", "reference_payoffs"} <= broken


def test_the_audit_checks_each_round_is_its_situation(
    original_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = original_run
    first = find(events, DistributionsDrawn, lambda d: d.situation == "B")
    swapped = replaced(events, DistributionsDrawn, lambda d: d is first, situation="C")
    assert "situations" in _broken(swapped)
    probs = dict(first.class_probabilities or {})
    probs[IncomeClass.HIGH], probs[IncomeClass.LOW] = (
        probs[IncomeClass.LOW],
        probs[IncomeClass.HIGH],
    )
    skewed = replaced(events, DistributionsDrawn, lambda d: d is first, class_probabilities=probs)
    assert "situations" in _broken(skewed)


def test_the_audit_reads_the_chances_the_prompt_showed(
    original_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = original_run
    i = index_of(
        events,
        ModelCallRequested,
        lambda r: r.request.address.startswith("p1/alice/r2/choice"),
    )
    requested = events[i]
    assert isinstance(requested, ModelCallRequested)
    wrong = requested.request.input.replace("high 6.306%", "high 5%", 1)
    forged = requested.model_copy(
        update={"request": requested.request.model_copy(update={"input": wrong})}
    )
    assert "prompt_round_table" in _broken([*events[:i], forged, *events[i + 1 :]])


def test_original_values_refuses_a_custom_probability_table() -> None:
    custom = {"high": 0.2, "medium_high": 0.2, "medium": 0.2, "medium_low": 0.2, "low": 0.2}
    with pytest.raises(ConfigError) as err:
        make_config(original_values=True, class_probabilities=custom)
    assert "class_probabilities" in str(err.value) and "situation" in str(err.value)


def test_original_values_config_survives_its_recording() -> None:
    config = make_config(original_values=True)
    again = type(config).model_validate(config.model_dump(mode="json"))
    assert again.original_values


# --- the manipulator ---------------------------------------------------------------------------


def _rank(*letters: str) -> Ranking:
    return Ranking(order=tuple(Principle(x) for x in letters), certainty=Certainty.SURE)  # type: ignore[arg-type]


def test_borda_scores_and_the_tie_rule() -> None:
    rankings = {"bob": _rank("a", "b", "c", "d"), "carol": _rank("b", "a", "d", "c")}
    scores = manipulator.borda_scores(rankings)
    assert scores == {Principle("a"): 5, Principle("b"): 5, Principle("c"): 1, Principle("d"): 1}
    assert manipulator.target_of(scores) is Principle("d")  # c and d tie: the later letter
    assert manipulator.target_of(manipulator.borda_scores({})) is Principle("d")


def test_borda_agrees_with_the_audits_reference_on_every_pair_of_rankings() -> None:
    orders = list(itertools.permutations("abcd"))
    rng = random.Random(7)
    for _ in range(300):
        picked = [rng.choice(orders) for _ in range(rng.randint(1, 4))]
        mine = manipulator.borda_scores({str(i): _rank(*o) for i, o in enumerate(picked)})
        theirs = reference.borda([list(o) for o in picked])
        assert {p.value: n for p, n in mine.items()} == theirs
        assert manipulator.target_of(mine).value == reference.borda_target(theirs)


def _manipulated(**overrides: Any) -> Any:
    return make_config(manipulator={"agent": "carol"}, **overrides)


@pytest.fixture(scope="module")
def manipulated_run() -> tuple[list[Event], list[ModelRequest]]:
    config = _manipulated(seed=4, phase2_rounds=4)
    _, events, requests = drive(config, simulated_responder(config))
    return events, requests


def test_the_target_is_chosen_after_phase_1_from_the_others_rankings(
    manipulated_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = manipulated_run
    chosen = [e for e in events if isinstance(e, ManipulatorTargetChosen)]
    assert len(chosen) == 1
    event = chosen[0]
    assert event.manipulator == "carol" and event.counted == ["alice", "bob"]
    at = events.index(event)
    phase2 = index_of(events, StepStarted, lambda s: s.step == "2.1")
    assert phase2 < at
    finals = [
        e.value["order"]
        for e in events[:at]
        if getattr(e, "kind", None) == "ranking"
        and getattr(e, "slot", "").endswith("/s1.4/ranking")
        and getattr(e, "agent", None) in ("alice", "bob")
        and hasattr(e, "value")
    ]
    assert len(finals) == 2
    points = {letter: 0 for letter in "abcd"}
    for order in finals:
        for place, letter in enumerate(order):
            points[letter] += 3 - place
    assert {p.value: n for p, n in event.scores.items()} == points
    low = min(points.values())
    assert event.target.value == max(x for x, n in points.items() if n == low)


def test_only_the_manipulator_is_told_and_only_from_phase_2(
    manipulated_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, requests = manipulated_run
    event = find(events, ManipulatorTargetChosen)
    told = manipulator.instruction(event.target, "en")
    cue = "steer the group to agree on principle"
    carol_p2 = [r for r in requests if r.agent == "carol" and r.address.startswith("p2/")]
    assert carol_p2 and all(told in r.input for r in carol_p2)
    assert all(r.context.get("steer_to") == event.target.value for r in carol_p2)
    assert not any(cue in r.input for r in requests if r.agent != "carol")
    assert not any(cue in r.input for r in requests if r.address.startswith("p1/"))


def test_a_manipulated_run_passes_every_audit_and_tables_carry_the_target(
    manipulated_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = manipulated_run
    history = history_from_events(events)
    assert audit_protocol(history).violations == ()
    assert audit_leaks(history).leaks == ()
    event = find(events, ManipulatorTargetChosen)
    (row,) = list(conditions(history))
    assert row["manipulator"] == "carol" and row["target"] == event.target.value
    assert [row[f"borda_{x}"] for x in "abcd"] == [event.scores[Principle(x)] for x in "abcd"]
    assert row["target_adopted"] == (row["agreement"] == event.target.value)


def test_the_simulated_manipulator_holds_the_target_on_its_ballots() -> None:
    config = _manipulated(seed=2, phase2_rounds=10)
    _, events, _ = drive(config, simulated_responder(config))
    target = find(events, ManipulatorTargetChosen).target
    ballots = [
        e.value["principle"]
        for e in events
        if getattr(e, "kind", None) == "ballot"
        and getattr(e, "agent", None) == "carol"
        and hasattr(e, "value")
    ]
    assert ballots and set(ballots) == {target.value}


def test_the_audit_recomputes_the_target(
    manipulated_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = manipulated_run
    event = find(events, ManipulatorTargetChosen)
    other = next(p for p in Principle if p is not event.target)
    assert "manipulator_target" in _broken(replaced(events, ManipulatorTargetChosen, target=other))
    scores = {**event.scores, other: event.scores[other] + 1}
    assert "manipulator_target" in _broken(replaced(events, ManipulatorTargetChosen, scores=scores))


def test_the_audits_catch_the_instruction_in_the_wrong_prompt(
    manipulated_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    events, _ = manipulated_run
    told = manipulator.instruction(find(events, ManipulatorTargetChosen).target, "en")

    def edit(agent: str, change: Any) -> list[Event]:
        i = index_of(
            events,
            ModelCallRequested,
            lambda r: r.request.agent == agent and r.request.address.startswith("p2/r2/"),
        )
        requested = events[i]
        assert isinstance(requested, ModelCallRequested)
        request = requested.request.model_copy(update={"input": change(requested.request.input)})
        return [*events[:i], requested.model_copy(update={"request": request}), *events[i + 1 :]]

    # The manipulator's own prompt without it: the protocol audit.
    assert "manipulator_instruction" in _broken(edit("carol", lambda t: t.replace(told, "")))
    # Another agent's prompt with it: the leak audit.
    leaked = edit("alice", lambda t: t + "\n\n" + told)
    leaks = audit_leaks(history_from_events(leaked)).leaks
    assert any(leak.kind == "manipulator instruction" and leak.owner == "carol" for leak in leaks)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"manipulator": {"agent": "zoe"}}, "manipulator.agent: no agent is named 'zoe'"),
        (
            {
                "manipulator": {"agent": "alice"},
                "agents": [{"name": "alice"}, {"name": "bob"}],
            },
            "at least 3 agents",
        ),
    ],
)
def test_a_bad_manipulator_is_one_config_error(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        make_config(**overrides)
    assert message in str(err.value)
    assert len(str(err.value).splitlines()) == 1


def test_the_run_summary_names_the_conditions() -> None:
    config = _manipulated(seed=4, phase2_rounds=4, original_values=True)
    state, events, _ = drive(config, simulated_responder(config))
    summary = summarize("r", state)
    target = find(events, ManipulatorTargetChosen).target.value
    assert summary.conditions[0].startswith("original values")
    assert summary.conditions[1].startswith(f"manipulator carol: target ({target}), adopted: ")
    assert "conditions" in summary.as_dict()
    base_state, _, _ = drive(make_config(), agreeable)
    assert "conditions" not in summarize("r", base_state).as_dict()


@pytest.mark.parametrize("config_name", ["frohlich_es.yaml", "frohlich_zh.yaml"])
def test_the_conditions_speak_the_participants_language(config_name: str) -> None:
    from tests.domain.frohlich.test_languages import english_in, participant_prompts
    from tests.support.languages import drive as drive_language
    from tests.support.languages import load

    base = load(config_name)
    steerer = base.agents[2].name
    config = load(
        config_name, original_values=True, manipulator={"agent": steerer}, phase2_rounds=3
    )
    requests, events = drive_language(config)
    history = history_from_events(events)
    assert audit_protocol(history).violations == ()
    assert audit_leaks(history).leaks == ()
    told = manipulator.instruction(find(events, ManipulatorTargetChosen).target, config.language)
    assert any(told in r.input for r in requests if r.agent == steerer)
    for agent in config.agents:
        for address, prompt in participant_prompts(requests, events, config, agent.name):
            assert english_in(prompt) == [], (address, english_in(prompt)[:5])


def test_the_report_shows_the_target_and_whether_it_was_adopted(
    manipulated_run: tuple[list[Event], list[ModelRequest]],
) -> None:
    from maai.projections.report import run_report

    events, _ = manipulated_run
    event = find(events, ManipulatorTargetChosen)
    page = run_report(history_from_events(events))
    scores = ", ".join(f"({p.value}) {event.scores[p]}" for p in Principle)
    assert f"({event.target.value}); Borda scores {scores}" in page
    assert "target adopted" in page
