"""Every audit of every experiment passes runs of the realistic participant
(``tests/support/realistic.py``), whose answers and memories quote the prompt, restate earlier
rounds ("round 1 of 4" in a round-2 prompt's memory), copy tables and results into their
notes, quote other agents and mix languages: each prompt rule reads only its own part of the
prompt (docs/frohlich.md §9, "What each prompt rule reads"). And reading by structure does
not blind a rule: a planted bug in what the code shows is still caught in such a run."""

from __future__ import annotations

from typing import Any

import pytest

from maai.domain.collaboration.events import BeliefStated
from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich import render, rules
from maai.domain.frohlich.events import PayoffAwarded, ReasoningRecorded
from maai.domain.world.events import ActionResolved
from maai.projections.frohlich.leaks import audit_leaks
from maai.projections.frohlich.reference_words import words_for
from maai.projections.history import History, history_from_events
from tests.projections.frohlich.recording import simulated_responder
from tests.projections.frohlich.test_leak_audit import append, at, plant
from tests.support import collaboration_driver, world_driver
from tests.support.driver import drive, make_config
from tests.support.realistic import RealisticParticipant


def frohlich_config(language: str, **overrides: Any) -> Any:
    persona: dict[str, Any] = {"error_rate": 0.1, "conformity": 0.9}
    agents: list[dict[str, Any]] = [
        {"name": "alice", "persona": {**persona, "preferred_principle": "c"}},
        {"name": "bob", "persona": {**persona, "preferred_principle": "b"}},
        {"name": "carol", "persona": {**persona, "preferred_principle": "d"}},
    ]
    agents[0]["persona"]["preferred_amount"] = 13000
    for agent in agents:
        agent["memory_words"] = 300  # room for the quotes (a shortened memory keeps fewer)
    settings: dict[str, Any] = {"seed": 11, "phase2_rounds": 2, **overrides}
    return make_config(language=language, agents=agents, **settings)


def frohlich_run(language: str, **overrides: Any) -> list[Event]:
    config = frohlich_config(language, **overrides)
    _, events, _ = drive(config, RealisticParticipant(simulated_responder(config)))
    return events


def verdicts(history: History) -> dict[str, Any]:
    assert history.experiment is not None
    views = history.experiment.views()
    found: dict[str, Any] = {
        "protocol": views.audit_protocol(history).violations,
        "leaks": views.audit_leaks(history).leaks,
    }
    if views.audit_votes(history) is not None:
        found["votes"] = views.vote_problems(history)  # type: ignore[attr-defined]
    return found


def quoted_rounds(events: list[Event], language: str) -> int:
    """How many Phase-1 choice prompts show a memory that names an earlier round."""
    words = words_for(language)
    count = 0
    for event in events:
        if not isinstance(event, ModelCallRequested) or "/choice/" not in event.request.address:
            continue
        rnd = int(event.request.address.split("/")[2][1:])
        text = event.request.input
        memory = text[text.find(words.memory_head) : text.find("\n\n---\n\n")]
        if any(int(m.group(1)) < rnd for m in words.round_of.finditer(memory)):
            count += 1
    return count


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_frohlich_runs_of_the_realistic_participant_pass_every_audit(language: str) -> None:
    events = frohlich_run(language)
    assert quoted_rounds(events, language) >= 3, "memories must quote earlier rounds"
    found = verdicts(history_from_events(events))
    assert all(not v for v in found.values()), found


def test_a_realistic_manipulator_run_passes_every_audit() -> None:
    """The manipulator's memory quotes its instruction; its prompts are still judged by the
    instruction's place, after the memory."""
    events = frohlich_run("en", manipulator={"agent": "carol"}, seed=4, phase2_rounds=3)
    memories = [e for e in events if getattr(e, "agent", None) == "carol" and hasattr(e, "memory")]
    assert any("steer" in m.memory for m in memories), "the memory must quote the instruction"
    found = verdicts(history_from_events(events))
    assert all(not v for v in found.values()), found


def test_a_dropped_instruction_is_caught_though_the_memory_quotes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bug: only the memory updates carry the manipulator's instruction, its statements and
    reasoning do not. Its memory quotes the instruction, which must not stand in for it."""
    real = render.participant_input

    def dropped(agent: Any, personality: str, language: str, task: str, told: Any = None) -> str:
        keep = told if task.startswith("Time to update your memory") else None
        return real(agent, personality, language, task, keep)

    monkeypatch.setattr(render, "participant_input", dropped)
    events = frohlich_run("en", manipulator={"agent": "carol"}, seed=4, phase2_rounds=3)
    found = verdicts(history_from_events(events))
    assert "manipulator_instruction" in {v.rule for v in found["protocol"]}


def test_a_planted_bug_is_still_caught_in_a_realistic_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bug: rounds 2-4 show the base table (as test_audits_catch_code_bugs.py), here with
    memories that quote the tables of earlier rounds."""
    real = render.distribution_table
    base = [list(d.incomes) for d in rules.base_set().distributions]

    def shown(dists: Any, probs: Any = None, language: str = "en") -> str:
        return real(base if probs is None else dists, probs, language)

    monkeypatch.setattr(render, "distribution_table", shown)
    found = verdicts(history_from_events(frohlich_run("en")))
    assert {v.rule for v in found["protocol"]} >= {"prompt_round_table"}


def test_collaboration_runs_of_the_realistic_participant_pass_every_audit() -> None:
    for config in (collaboration_driver.make_config(), collaboration_driver.baseline_config()):
        responder = RealisticParticipant(collaboration_driver.simulated(config))
        run = collaboration_driver.drive(config, responder)
        found = verdicts(history_from_events(run.events))
        assert all(not v for v in found.values()), found


@pytest.mark.parametrize("name", ["world_pgg.yaml", "world_free.yaml"])
def test_world_runs_of_the_realistic_participant_pass_every_audit(name: str) -> None:
    config = world_driver.load(name)
    run = world_driver.drive(config, RealisticParticipant(world_driver.simulated(config)))
    found = verdicts(history_from_events(run.events))
    assert all(not v for v in found.values()), found


def test_a_leak_is_still_caught_in_a_realistic_run() -> None:
    """Reading only what the code wrote (the memory and what anyone said set aside) does not
    blind the leak audit: in a run whose statements and memories quote bank balances, bob's
    private reasoning or his balance in alice's preamble is still found."""
    events = frohlich_run("en")
    assert not verdicts(history_from_events(events))["leaks"]
    reasoning = next(e for e in events if isinstance(e, ReasoningRecorded) and e.agent == "bob")
    address = "p2/r2/alice/statement"
    leaked = plant(events, at(address), append(reasoning.text))
    found = {(x.address, x.kind, x.owner) for x in audit_leaks(history_from_events(leaked)).leaks}
    assert found == {(address, "private reasoning", "bob")}

    def balance(agent: str) -> str:
        paid = [e for e in events if isinstance(e, PayoffAwarded) and e.agent == agent]
        cents = paid[3].balance_cents  # after round 4, as the discussion shows it
        return f"Bank balance: ${cents // 100}.{cents % 100:02d}\n"

    assert balance("alice") != balance("bob")
    prompt = next(e for e in events if isinstance(e, ModelCallRequested) and at(address)(e))
    assert balance("alice") in prompt.request.input
    swapped = plant(
        events, at(address), lambda prompt: prompt.replace(balance("alice"), balance("bob"), 1)
    )
    found = {(x.address, x.kind, x.owner) for x in audit_leaks(history_from_events(swapped)).leaks}
    assert found == {(address, "bank balance", "bob")}


def test_a_secret_is_still_caught_in_a_realistic_world_run() -> None:
    """The world's players tell their private bios aloud (no leak to those who hear it); the
    same bio put by the code into the prompt of someone who never heard it is one."""
    config = world_driver.load("world_pgg.yaml")
    run = world_driver.drive(config, RealisticParticipant(world_driver.simulated(config)))
    assert not verdicts(history_from_events(run.events))["leaks"]
    spoken = [e for e in run.events if isinstance(e, ActionResolved) and e.text]
    first = next(e for e in run.events if isinstance(e, ModelCallRequested))
    teller = next(
        a
        for a in config.world.agents
        if a.name != first.request.agent and any(a.private_bio in e.text for e in spoken)
    )
    planted = plant(run.events, at(first.request.address), append(teller.private_bio))
    leaks = audit_leaks_of(history_from_events(planted))
    assert {(x.agent, x.kind, x.owner) for x in leaks} == {
        (first.request.agent, "private bio", teller.name)
    }


def audit_leaks_of(history: History) -> Any:
    assert history.experiment is not None
    return history.experiment.views().audit_leaks(history).leaks


def test_a_partners_reasoning_is_still_caught_in_a_realistic_collaboration_run() -> None:
    """The realistic partners quote their own earlier answers in their messages (public from
    then on); a partner's reasoning the code put in the other's prompt is still found."""
    config = collaboration_driver.make_config()
    run = collaboration_driver.drive(
        config, RealisticParticipant(collaboration_driver.simulated(config))
    )
    assert not verdicts(history_from_events(run.events))["leaks"]
    first = next(e for e in run.events if isinstance(e, ModelCallRequested))
    secret = next(
        e.reasoning
        for e in run.events
        if isinstance(e, BeliefStated)
        and e.agent != first.request.agent
        and e.reasoning
        and len(e.reasoning) >= 20
    )
    planted = plant(run.events, at(first.request.address), append(secret))
    leaks = audit_leaks_of(history_from_events(planted))
    assert [(x.agent, x.kind) for x in leaks] == [(first.request.agent, "private reasoning")]
