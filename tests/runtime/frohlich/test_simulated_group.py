"""Group behaviour in Phase 2: vote proposals, conformity, and whether a default group agrees.

``discuss`` is a small stand-in for the engine's Phase-2 loop (docs/frohlich.md §4): speaking order,
reasoning then statement, polls on a proposal, a secret ballot when all say yes, the tally
when it fails. It reads answers with the simulation's own lenient readers, so it tests the
policy, not the engine.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from maai.domain.calls import ModelRequest
from maai.domain.frohlich.config import AgentConfig, PersonaConfig
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated import Persona, persona_for
from maai.domain.frohlich.simulated.phrases_en import EN
from maai.domain.frohlich.simulated.policy import answer
from maai.domain.frohlich.simulated.reading import Stance, poll_answer_in, stance_in
from maai.domain.frohlich.types import Principle

NAMES = ("alice", "bob", "carol", "dave", "eve")
PROPOSAL = "\nI PROPOSE A VOTE"
T = TypeVar("T")


def ask(
    persona: Persona,
    seed: int,
    purpose: Purpose,
    slot: str,
    context: dict[str, Any],
    parse: Callable[[str], T | None] = lambda text: None,
    attempts: int = 3,
) -> tuple[str, T | None]:
    feedback: str | None = None
    text = ""
    for attempt in range(1, attempts + 1):
        ctx = {**context, "attempt": attempt, "feedback": feedback}
        req = ModelRequest(
            address=f"{slot}/{attempt}",
            agent=persona.name,
            purpose=purpose,
            model="simulated",
            system="",
            input="",
            context=ctx,
        )
        text = answer(EN, persona, seed, req)
        value = parse(text)
        if value is not None or purpose in (Purpose.REASONING, Purpose.STATEMENT):
            return text, value
        feedback = "Your answer could not be read."
    return text, None


def ballot_of(text: str) -> Stance | None:
    stance = stance_in(text, strict=True)
    return stance if stance is not None and stance.complete else None


def tally_text(ballots: list[Stance | None]) -> str:
    parts = []
    for stance, count in Counter(ballots).items():
        if stance is None:
            parts.append(f"an invalid or missing ballot: {count}")
        else:
            amount = f" of ${stance.amount:,}" if stance.amount else ""
            parts.append(f"({stance.principle.value}) {stance.principle.title}{amount}: {count}")
    return f"Secret ballot result: {'; '.join(parts)}. No agreement; the discussion continues."


def discuss(seed: int, rounds: int = 10) -> tuple[int | None, Counter[int]]:
    """(the round of consensus or None, proposals per round)."""
    personas = {n: persona_for(AgentConfig(name=n), seed) for n in NAMES}
    history: list[dict[str, Any]] = []
    order_rng = random.Random(seed)
    proposals: Counter[int] = Counter()
    last: str | None = None
    for r in range(1, rounds + 1):
        order = list(NAMES)
        order_rng.shuffle(order)
        if order[0] == last:
            order[0], order[1] = order[1], order[0]
        last = order[-1]
        for turn, name in enumerate(order):
            base = {"step": "2.1", "round": r, "rounds": rounds}
            ctx = {**base, "history": list(history)}
            reasoning, _ = ask(personas[name], seed, Purpose.REASONING, f"{r}/{name}/r", ctx)
            ctx = {**ctx, "reasoning": reasoning}
            said, _ = ask(personas[name], seed, Purpose.STATEMENT, f"{r}/{name}/s", ctx)
            history.append(statement(name, r, said))
            if not said.endswith(PROPOSAL):
                continue
            proposals[r] += 1
            ctx = {**base, "proposer": name, "history": list(history)}
            answers = [
                ask(personas[m], seed, Purpose.POLL, f"{r}/{turn}/poll/{m}", ctx, poll_answer_in)[1]
                for m in NAMES
            ]
            history.append({"kind": "poll", "speaker": None, "text": str(answers), "round": r})
            if not all(answers):
                continue
            ctx = {**base, "history": list(history)}
            ballots = [
                ask(personas[m], seed, Purpose.BALLOT, f"{r}/{turn}/ballot/{m}", ctx, ballot_of)[1]
                for m in NAMES
            ]
            if None not in ballots and len(set(ballots)) == 1:
                return r, proposals
            history.append(
                {"kind": "tally", "speaker": None, "text": tally_text(ballots), "round": r}
            )
    return None, proposals


def test_a_default_group_usually_but_not_always_agrees() -> None:
    outcomes = [discuss(seed)[0] for seed in range(30)]
    agreed = [r for r in outcomes if r is not None]
    assert 0.5 <= len(agreed) / len(outcomes) < 1.0
    assert len(set(agreed)) > 2  # not always in the same round


def test_discussions_are_reproducible() -> None:
    assert discuss(3) == discuss(3)


def statement_proposes(persona: Persona, seed: int, round_: int, others: Stance) -> bool:
    text = f"I support {describe(others)}."
    history = [statement(f"other{i}", max(1, round_ - 1), text) for i in range(3)]
    ctx = {"step": "2.1", "round": round_, "rounds": 10, "history": history}
    text, _ = ask(persona, seed, Purpose.STATEMENT, f"{round_}/{persona.name}/s", ctx)
    return text.endswith(PROPOSAL)


def statement(speaker: str, round_: int, text: str) -> dict[str, Any]:
    return {"kind": "statement", "speaker": speaker, "round": round_, "text": text}


def describe(stance: Stance) -> str:
    amount = f" of ${stance.amount:,}" if stance.amount else ""
    return f"({stance.principle.value}) {stance.principle.title.lower()}{amount}"


def test_proposals_grow_with_the_round_and_with_agreement() -> None:
    agree, disagree = Stance(Principle.FLOOR_CONSTRAINT, 13_000), Stance(Principle.AVERAGE)
    cfg = PersonaConfig(
        preferred_principle=Principle.FLOOR_CONSTRAINT, preferred_amount=13_000, conformity=0.0
    )
    personas = [persona_for(AgentConfig(name=f"p{i}", persona=cfg), 1) for i in range(300)]

    def rate(round_: int, others: Stance) -> float:
        return sum(statement_proposes(p, 1, round_, others) for p in personas) / len(personas)

    early, late = rate(2, agree), rate(9, agree)
    assert 0 < early < late
    assert rate(9, disagree) < late


def test_yes_to_a_vote_grows_with_the_round_agreement_and_conformity() -> None:
    def yes_rate(round_: int, others: Stance, conformity: float) -> float:
        cfg = PersonaConfig(
            preferred_principle=Principle.FLOOR_CONSTRAINT,
            preferred_amount=13_000,
            conformity=conformity,
            stubbornness=0.5,
            error_rate=0.0,
        )
        text = f"I support {describe(others)}."
        history = [statement(n, round_, text) for n in ("bob", "carol", "dave")]
        ctx = {"step": "2.1", "round": round_, "rounds": 10, "proposer": "bob", "history": history}
        answers = []
        for seed in range(300):  # a seed per answer: the position moves once per agent and round
            persona = persona_for(AgentConfig(name="zoe", persona=cfg), seed)
            poll = ask(persona, seed, Purpose.POLL, f"{round_}/0/poll/zoe", ctx, poll_answer_in)
            answers.append(poll[1])
        return answers.count(True) / len(answers)

    agree, disagree = Stance(Principle.FLOOR_CONSTRAINT, 13_000), Stance(Principle.FLOOR)
    assert yes_rate(2, agree, 0.5) < yes_rate(9, agree, 0.5)
    assert yes_rate(5, disagree, 0.5) < yes_rate(5, agree, 0.5)
    assert yes_rate(5, disagree, 0.0) < yes_rate(5, disagree, 1.0)


def ballot_after_majority(conformity: float, stubbornness: float, seed: int) -> Stance | None:
    cfg = PersonaConfig(
        preferred_principle=Principle.FLOOR_CONSTRAINT,
        preferred_amount=14_000,
        conformity=conformity,
        stubbornness=stubbornness,
        error_rate=0.0,
    )
    persona = persona_for(AgentConfig(name="zoe", persona=cfg), seed)
    own = f"I support {describe(Stance(Principle.FLOOR_CONSTRAINT, 14_000))}."
    history = [statement("zoe", 7, own)] + [
        statement(n, 7, "I support (a) maximizing the floor income.")
        for n in ("bob", "carol", "dave", "eve")
    ]
    ctx = {"step": "2.1", "round": 8, "rounds": 10, "history": history}
    return ask(persona, seed, Purpose.BALLOT, "8/0/ballot/zoe", ctx, ballot_of)[1]


def test_conformity_moves_positions_toward_the_majority() -> None:
    majority = Stance(Principle.FLOOR)
    conformist = [ballot_after_majority(1.0, 0.0, seed) for seed in range(100)]
    independent = [ballot_after_majority(0.0, 0.5, seed) for seed in range(100)]
    assert conformist.count(majority) >= 70
    assert independent.count(majority) == 0
    assert set(independent) == {Stance(Principle.FLOOR_CONSTRAINT, 14_000)}


def test_an_amount_is_conceded_more_easily_than_a_principle() -> None:
    def moved(others: Stance) -> int:
        count = 0
        for seed in range(200):
            cfg = PersonaConfig(
                preferred_principle=Principle.FLOOR_CONSTRAINT,
                preferred_amount=14_000,
                conformity=0.4,
                stubbornness=0.5,
            )
            persona = persona_for(AgentConfig(name="zoe", persona=cfg), seed)
            text = f"I support {describe(others)}."
            history = [statement(n, 3, text) for n in ("bob", "carol")]
            ctx = {"step": "2.1", "round": 4, "rounds": 10, "history": history}
            ballot = ask(persona, seed, Purpose.BALLOT, "4/0/ballot/zoe", ctx, ballot_of)[1]
            count += ballot == others
        return count

    assert moved(Stance(Principle.FLOOR_CONSTRAINT, 12_000)) > moved(Stance(Principle.FLOOR))
