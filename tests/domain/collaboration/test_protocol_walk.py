"""The collaboration game's protocol (docs/collaboration.md §2, §3) driven through ``decide``
with scripted answers: step order and addresses, reading answers (told why, asked again, the
utility agent, missing after the attempts), message rules, what each prompt shows, the
baseline and the number of exchanges."""

from __future__ import annotations

import json
from typing import Any

import pytest

from maai.domain.answers import AnswerAccepted, AnswerMissing, AnswerRejected, AnswerUndecided
from maai.domain.calls import EXTRACT, ModelAnswer, ModelRequest
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.collaboration.protocol import PARTNER_STREAM, decide
from maai.domain.collaboration.state import evolve
from maai.domain.config import UTILITY
from maai.domain.events import ModelCallCompleted, ModelCallRequested, RunCompleted
from maai.domain.random_streams import stream
from tests.support.collaboration_driver import (
    ASYMMETRIC,
    FIRST,
    SECOND,
    Drive,
    baseline_config,
    drive,
    make_config,
    scripted,
    start,
    well_behaved,
)

A1, A2 = FIRST, SECOND


def turn(belief: Any, prediction: Any = None, message: str | None = None) -> str:
    lines = [f"BELIEF: {belief}"]
    if prediction is not None:
        lines.append(f"PREDICTION: {prediction}")
    lines.append("REASONING: scripted")
    if message is not None:
        lines.append(f"MESSAGE: {message}")
    return "\n".join(lines)


def extraction(**values: Any) -> str:
    found = {"belief": None, "prediction": None, "option": None, **values}
    found.setdefault("readable", any(v is not None for v in found.values()))
    return json.dumps(found)


def events_for(run: Drive, slot: str, kind: type[Any]) -> list[Any]:
    return [e for e in run.of(kind) if e.slot == slot]


# --- order and addresses ----------------------------------------------------------------------


def test_steps_come_in_order_at_their_addresses() -> None:
    run = drive(make_config(), well_behaved)
    rounds = [sorted(r.address for r in batch) for batch in run.rounds]
    assert rounds == [
        # step 1: both at once
        sorted([f"c/{A1}/initial/1", f"c/{A2}/initial/1"]),
        # turns 2..2n, agent 2 first, one at a time
        [f"c/t2/{A2}/1"],
        [f"c/t3/{A1}/1"],
        [f"c/t4/{A2}/1"],
        [f"c/t5/{A1}/1"],
        [f"c/t6/{A2}/1"],
        # step 2n+1: agent 1 updates after the last message
        [f"c/t7/{A1}/1"],
        # the decisions: both at once
        sorted([f"c/{A1}/decision/1", f"c/{A2}/decision/1"]),
    ]
    purposes = {r.address: r.purpose for r in run.requests}
    assert purposes[f"c/{A1}/initial/1"] == purposes[f"c/{A2}/initial/1"] == "initial"
    assert purposes[f"c/t2/{A2}/1"] == "turn" and purposes[f"c/t7/{A1}/1"] == "update"
    assert purposes[f"c/{A1}/decision/1"] == "decision"

    messages = run.of(MessageSent)
    assert [(m.index, m.agent) for m in messages] == [
        (1, A1),
        (2, A2),
        (3, A1),
        (4, A2),
        (5, A1),
        (6, A2),
    ]
    assert all(m.breaches == [] for m in messages)
    steps = {a: [b.step for b in run.of(BeliefStated) if b.agent == a] for a in (A1, A2)}
    assert steps == {A1: [0, 3, 5, 7], A2: [0, 2, 4, 6]}
    # Every agent updates after every message it receives, and predicts from its first reply.
    assert all((b.prediction is None) == (b.step == 0) for b in run.of(BeliefStated))

    points = run.of(PointsAwarded)
    assert len(points) == 1
    assert points[0].points == {A1: 111, A2: 111}
    assert points[0].strategies == {A1: "collaborative", A2: "collaborative"}
    assert points[0].both_collaborative and not points[0].mismatch
    assert run.of(GameEnded)[0].outcome == "complete"
    assert isinstance(run.events[-1], RunCompleted)


def test_a_mismatch_is_derived_from_the_choices() -> None:
    def responder(request: ModelRequest) -> str:
        if request.address == f"c/{A2}/decision/1":
            return "CHOICE: Y\nREASONING: Safe."
        return well_behaved(request)

    run = drive(make_config(), responder)
    (points,) = run.of(PointsAwarded)
    assert points.points == {A1: -90, A2: 50}
    assert points.mismatch and not points.both_collaborative
    decisions = {d.agent: (d.option, d.strategy) for d in run.of(DecisionMade)}
    assert decisions == {A1: ("A", "collaborative"), A2: ("Y", "individual")}


@pytest.mark.parametrize(("exchanges", "messages"), [(1, 2), (10, 20)])
def test_the_number_of_exchanges_sets_the_number_of_messages(exchanges: int, messages: int) -> None:
    run = drive(make_config(exchanges=exchanges), well_behaved)
    assert [m.index for m in run.of(MessageSent)] == list(range(1, messages + 1))
    last = 2 * exchanges + 1
    assert run.addresses()[-3] == f"c/t{last}/{A1}/1"
    assert run.request(f"c/t{last}/{A1}/1").purpose == "update"
    assert f"c/t{last + 1}/{A2}/1" not in run.addresses()
    assert run.of(GameEnded)[0].outcome == "complete"


# --- reading answers --------------------------------------------------------------------------


def test_a_belief_of_150_is_told_why_and_asked_again() -> None:
    slot = f"c/{A2}/initial"
    responder, _ = scripted({f"{slot}/1": [turn(150)]})
    run = drive(make_config(), responder)
    (rejected,) = events_for(run, slot, AnswerRejected)
    assert rejected.source == "parser" and "150" in rejected.reason
    again = run.request(f"{slot}/2")
    assert rejected.reason in again.input and again.context["feedback"] == rejected.reason
    assert "could not be used" in again.input
    (accepted,) = events_for(run, slot, AnswerAccepted)
    assert accepted.attempt == 2
    initial = next(b for b in run.of(BeliefStated) if b.agent == A2 and b.step == 0)
    assert initial.belief == 70


def test_a_hedged_belief_is_told_why_and_asked_again() -> None:
    slot = f"c/t3/{A1}"
    responder, _ = scripted({f"{slot}/1": [turn("around seventy-ish", 60, "Let us go on.")]})
    run = drive(make_config(), responder)
    (rejected,) = events_for(run, slot, AnswerRejected)
    assert "approximate" in rejected.reason
    assert rejected.reason in run.request(f"{slot}/2").input
    assert [e.attempt for e in events_for(run, slot, AnswerAccepted)] == [2]
    assert not [r for r in run.requests if r.agent == UTILITY]  # told, not extracted


def test_an_unreadable_answer_goes_to_the_utility_agent_and_is_accepted() -> None:
    slot = f"c/{A2}/initial"
    responder, _ = scripted(
        {
            f"{slot}/1": [turn("0.6")],  # a probability or a percentage?
            f"{slot}/1/{EXTRACT}/1": [extraction(belief=60)],
        }
    )
    run = drive(make_config(), responder)
    (undecided,) = events_for(run, slot, AnswerUndecided)
    assert undecided.source == "parser"
    extract = run.request(f"{slot}/1/{EXTRACT}/1")
    assert extract.agent == UTILITY and extract.purpose == EXTRACT
    assert "BELIEF: 0.6" in extract.input
    (accepted,) = events_for(run, slot, AnswerAccepted)
    assert accepted.source == "utility" and accepted.via == f"{slot}/1/{EXTRACT}/1"
    assert accepted.value["belief"] == 60
    assert f"{slot}/2" not in run.addresses()
    assert next(b for b in run.of(BeliefStated) if b.agent == A2).belief == 60


def test_an_answer_the_utility_agent_cannot_read_either_is_asked_again() -> None:
    slot = f"c/{A2}/initial"
    responder, _ = scripted(
        {
            f"{slot}/1": ["I would rather not put a number on it."],
            f"{slot}/1/{EXTRACT}/1": [extraction(readable=False)],
        }
    )
    run = drive(make_config(), responder)
    (rejected,) = events_for(run, slot, AnswerRejected)
    assert rejected.source == "utility"
    assert "did not state your belief" in rejected.reason
    assert rejected.reason in run.request(f"{slot}/2").input
    assert events_for(run, slot, AnswerAccepted)[0].attempt == 2


def test_after_the_attempts_a_belief_is_missing_never_defaulted() -> None:
    slot = f"c/t2/{A2}"
    responder, _ = scripted({f"{slot}/{n}": [turn(150, 60, "Hello.")] for n in (1, 2, 3)})
    run = drive(make_config(), responder)
    assert [e.attempt for e in events_for(run, slot, AnswerRejected)] == [1, 2, 3]
    assert f"{slot}/4" not in run.addresses()
    (missing,) = run.of(AnswerMissing)
    assert (missing.slot, missing.agent, missing.attempts) == (slot, A2, 3)
    assert "150" in missing.last_reason
    # No belief for that step and no text for that message: nothing made up.
    assert not [b for b in run.of(BeliefStated) if b.agent == A2 and b.step == 2]
    message = next(m for m in run.of(MessageSent) if m.index == 2)
    assert message.text is None and message.agent == A2
    # The partner is told that the message could not be read; the game goes on.
    assert f"2. {A2}: (no readable message)" in run.request(f"c/t3/{A1}/1").input
    assert run.of(GameEnded)[0].outcome == "complete"
    # The agent's next turn shows its last belief that was recorded: the initial one.
    assert "Your belief so far: 70." in run.request(f"c/t4/{A2}/1").input


def test_reask_is_bounded_by_the_configured_attempts() -> None:
    slot = f"c/{A1}/initial"
    config = make_config(attempts={"message": 2})
    responder, _ = scripted({f"{slot}/{n}": [turn("seventy-ish", message="Hi.")] for n in (1, 2)})
    run = drive(config, responder)
    assert [e.attempt for e in events_for(run, slot, AnswerRejected)] == [1, 2]
    assert [m.slot for m in run.of(AnswerMissing)] == [slot]
    assert next(m for m in run.of(MessageSent) if m.index == 1).text is None


def test_a_missing_decision_ends_the_game_incomplete_without_points() -> None:
    slot = f"c/{A2}/decision"
    script = {f"{slot}/{n}": ["CHOICE: Z\nREASONING: gut"] for n in (1, 2, 3)}
    script.update({f"{slot}/{n}/{EXTRACT}/1": [extraction(option="Z")] for n in (1, 2, 3)})
    responder, _ = scripted(script)
    run = drive(make_config(), responder)
    assert [m.slot for m in run.of(AnswerMissing)] == [slot]
    decisions = {d.agent: d for d in run.of(DecisionMade)}
    assert decisions[A2].option is None and decisions[A2].strategy is None
    assert decisions[A1].option == "A"
    assert run.of(PointsAwarded) == []
    (ended,) = run.of(GameEnded)
    assert ended.outcome == "incomplete"
    assert ended.reason is not None and A2 in ended.reason and A1 not in ended.reason
    assert isinstance(run.events[-1], RunCompleted)


def test_an_option_the_agent_does_not_have_is_told_why() -> None:
    slot = f"c/{A1}/decision"
    responder, _ = scripted({f"{slot}/1": ["CHOICE: K\nREASONING: Highest upside."]})
    run = drive(make_config(agents=ASYMMETRIC), responder)
    (rejected,) = events_for(run, slot, AnswerRejected)
    assert "do not have option K" in rejected.reason
    assert "A, B, C, Y" in rejected.reason
    assert {d.agent: d.option for d in run.of(DecisionMade)} == {A1: "A", A2: "K"}
    assert run.of(PointsAwarded)[0].points == {A1: 62, A2: 58}


# --- message rules ----------------------------------------------------------------------------

DISCLOSING = "I'm 80% sure this will work, so let us build it together."


def test_with_reask_a_message_disclosing_a_belief_is_asked_again_with_the_reason() -> None:
    slot = f"c/t2/{A2}"
    responder, _ = scripted({f"{slot}/1": [turn(70, 60, DISCLOSING)]})
    run = drive(make_config(message_rule="reask"), responder)
    (rejected,) = events_for(run, slot, AnswerRejected)
    assert "broke the rules for messages" in rejected.reason
    assert "belief disclosed" in rejected.reason and "80%" in rejected.reason
    assert rejected.reason in run.request(f"{slot}/2").input
    message = next(m for m in run.of(MessageSent) if m.index == 2)
    assert message.text is not None and "80%" not in message.text
    assert message.breaches == []


def test_with_flag_a_message_disclosing_a_belief_is_recorded_with_its_breach() -> None:
    slot = f"c/t2/{A2}"
    responder, _ = scripted({f"{slot}/1": [turn(70, 60, DISCLOSING)]})
    run = drive(make_config(message_rule="flag"), responder)
    assert events_for(run, slot, AnswerRejected) == []
    assert f"{slot}/2" not in run.addresses()
    message = next(m for m in run.of(MessageSent) if m.index == 2)
    assert message.text == DISCLOSING
    assert len(message.breaches) == 1 and message.breaches[0].startswith("belief disclosed")
    # The partner reads the message as it was sent.
    assert DISCLOSING in run.request(f"c/t3/{A1}/1").input


def test_a_message_naming_an_option_is_flagged() -> None:
    text = "I am leaning towards option A myself."
    responder, _ = scripted({f"c/{A1}/initial/1": [turn(70, message=text)]})
    run = drive(make_config(), responder)
    message = next(m for m in run.of(MessageSent) if m.index == 1)
    assert message.breaches == ["option disclosed: 'option A'"]


# --- what each prompt shows (docs/collaboration.md §3) -----------------------------------------


def test_the_u_value_is_shown_only_in_the_decision_prompts() -> None:
    run = drive(make_config(), well_behaved)
    for request in run.requests:
        text = request.system + "\n" + request.input
        if request.purpose == "decision":
            u = "0.75" if request.agent == A1 else "0.8"
            assert f"(u-value) is {u}:" in text
        else:
            assert "u-value" not in text and "threshold" not in text, request.address
            assert "u" not in request.context


PARTNER_BELIEF = 37  # a number no prompt shows for any other reason
SECRET = "private reasoning of Ben"


def partner_is_distinct(request: ModelRequest) -> str:
    if request.agent == A2 and request.purpose != "decision":
        ctx = request.context
        lines = [f"BELIEF: {PARTNER_BELIEF}"]
        if ctx.get("prediction"):
            lines.append("PREDICTION: 41")
        lines.append(f"REASONING: {SECRET}")
        if ctx.get("message"):
            lines.append("MESSAGE: Let us see how far we get.")
        return "\n".join(lines)
    return well_behaved(request)


@pytest.mark.parametrize("disclose", [True, False])
def test_the_partners_initial_belief_is_in_the_decision_prompt_iff_disclosed(
    disclose: bool,
) -> None:
    run = drive(make_config(disclose_initial_belief=disclose), partner_is_distinct)
    decision = run.request(f"c/{A1}/decision/1").input
    line = f"{A2}'s initial belief, before any message, was {PARTNER_BELIEF}."
    assert (line in decision) is disclose
    for request in run.requests:
        if request.agent != A1:
            continue
        text = request.system + "\n" + request.input
        # Ben's private material (his beliefs, predictions, reasoning) never reaches Ada,
        # except his initial belief in her decision prompt when disclosure is on.
        assert SECRET not in text
        assert "41" not in text
        if not (disclose and request.purpose == "decision"):
            assert str(PARTNER_BELIEF) not in text, request.address
    # Ada's decision shows her own beliefs and her own latest prediction.
    assert "Your initial belief: 70. Your latest belief: 70." in decision
    assert f"Your latest prediction of {A2}'s belief: 60." in decision


def test_the_decision_prompt_shows_the_whole_conversation_and_both_point_tables() -> None:
    run = drive(make_config(), well_behaved)
    decision = run.request(f"c/{A2}/decision/1").input
    for message in run.of(MessageSent):
        assert f"{message.index}. {message.agent}: {message.text}" in decision
    assert f"{A1}'s options:" in decision
    turn_prompt = run.request(f"c/t2/{A2}/1").input
    assert f"{A1}'s options:" not in turn_prompt  # turns show only the agent's own options


# --- the baseline -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_the_baseline_draws_its_partner_from_the_named_stream(seed: int) -> None:
    config = baseline_config(seed=seed, baseline={"p": 0.37})
    run = drive(config, well_behaved)
    assert run.addresses() == [f"c/{A1}/initial/1", f"c/{A1}/decision/1"]
    assert run.of(MessageSent) == []
    (drawn,) = run.of(PartnerDrawn)
    assert drawn.label == PARTNER_STREAM == "baseline/partner"
    assert drawn.p == 0.37
    assert drawn.draw == stream(seed, PARTNER_STREAM).random()
    assert drawn.collaborates is (drawn.draw < 0.37)
    (points,) = run.of(PointsAwarded)
    partner = "collaborative" if drawn.collaborates else "individual"
    assert points.strategies == {A1: "collaborative", "partner": partner}
    assert points.points == {A1: 111 if drawn.collaborates else -90}
    # The agent is not told p, and is shown no message rules.
    for request in run.requests:
        assert "0.37" not in request.input and "37" not in request.input
        assert "Rules for every message" not in request.input
        assert "MESSAGE:" not in request.input


@pytest.mark.parametrize(("p", "collaborates"), [(0.0, False), (1.0, True)])
def test_the_baseline_lottery_at_the_extremes(p: float, collaborates: bool) -> None:
    run = drive(baseline_config(baseline={"p": p}), well_behaved)
    assert run.of(PartnerDrawn)[0].collaborates is collaborates
    assert run.of(PointsAwarded)[0].points == {A1: 111 if collaborates else -90}


# --- requests do not depend on timing ---------------------------------------------------------


def test_a_request_does_not_change_when_the_concurrent_partner_answers_first() -> None:
    """Both first calls are asked together; agent 1's answer (with message 1) coming in first
    must not change agent 2's pending request: a resume asks it again and must ask the same."""
    config = make_config()
    first = drive(config, well_behaved).request(f"c/{A2}/initial/1")

    state, _ = start(config)
    decision = decide(state)
    state = decision.state
    calls = {r.address: r for r in decision.calls}
    ada = calls[f"c/{A1}/initial/1"]
    for request in calls.values():
        state = evolve(
            state, ModelCallRequested(request=request, request_hash=request.request_hash())
        )
    answer = ModelAnswer(text=well_behaved(ada))
    state = evolve(
        state,
        ModelCallCompleted(
            address=ada.address,
            agent=A1,
            request_hash=ada.request_hash(),
            model=ada.model,
            answer=answer,
        ),
    )
    again = next(r for r in decide(state).calls if r.address == f"c/{A2}/initial/1")
    assert [m.index for m in decide(state).state.messages] == [1]
    assert again == first
