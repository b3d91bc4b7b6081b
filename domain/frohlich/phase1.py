"""Phase 1 (docs/frohlich.md §3): each agent alone — rankings, the explanation, four paid rounds."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

from maai.domain.frohlich import render, rules
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.elicit import Elicited, elicit
from maai.domain.frohlich.events import DistributionsDrawn, PayoffAwarded, RoundUnpaid
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.prompts import word
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.situations import situation_of_round
from maai.domain.frohlich.state import State
from maai.domain.frohlich.steps import (
    builder,
    config_of,
    constraint_note,
    memory_done,
    memory_update,
    payoff_event,
    payoff_summary,
    probabilities,
    step_started,
)
from maai.domain.frohlich.types import IncomeClass, PrincipleChoice
from maai.domain.walk import Emit, Walk, wait

ROUNDS = 4


def phase1_agent(state: State, agent: str) -> Walk[None]:
    config = config_of(state)
    language = config.language_of(agent)
    principles = render_template("principles", language)
    instructions = render_template("ranking_instructions", language)

    def ranking_step(
        step: str, template: str, values: Callable[[], dict[str, str]] = dict
    ) -> Walk[Elicited]:
        def task(feedback: str | None) -> str:
            text = render_template(
                template,
                language,
                principles=principles,
                ranking_instructions=instructions,
                **values(),
            )
            return render.with_feedback(text, feedback, language, "ranking")

        yield from step_started(state, step, agent)
        slot = f"p1/{agent}/s{step}/ranking"
        result = yield from elicit(
            state,
            agent=agent,
            kind="ranking",
            slot=slot,
            max_attempts=config.attempts.ranking,
            build=builder(state, agent, Purpose.RANKING, task, step=step),
            task=task,
        )
        return result

    # Each stage ends with the agent's memory update and nothing later reads what happened
    # inside it, so a stage whose memory update is recorded is skipped whole: deciding late
    # in Phase 1 does not walk every earlier step again.
    def finished(slot: str) -> bool:
        return memory_done(state, slot)

    slot = f"p1/{agent}/s1.1/memory"
    if not finished(slot):
        first = yield from ranking_step("1.1", "step_1_1")
        yield from memory_update(state, agent, slot, "1.1", first.task, first.answer, None)

    slot = f"p1/{agent}/s1.2/memory"
    if not finished(slot):
        base = [list(d) for d in config.base_distributions()]
        probs = probabilities(config)
        second = yield from ranking_step(
            "1.2",
            "step_1_2",
            lambda: {
                "probabilities": render.probabilities_text(probs, language),
                "table": render.distribution_table(base, probs, language),
                "explanation": render.explanation_text(base, probs, language),
            },
        )
        yield from memory_update(state, agent, slot, "1.2", second.task, second.answer, None)

    for round_ in range(1, ROUNDS + 1):
        slot = f"p1/{agent}/r{round_}/memory"
        if finished(slot):
            continue
        yield from step_started(state, "1.3", agent, round_)
        drawn = yield from round_distributions(state, agent, round_)
        chosen = yield from round_choice(state, agent, round_, drawn.distributions, principles)
        outcome = yield from round_payment(state, agent, round_, chosen, drawn.distributions)
        yield from memory_update(
            state, agent, slot, "1.3", chosen.task, chosen.answer, outcome, round_
        )

    slot = f"p1/{agent}/s1.4/memory"
    if not finished(slot):
        final = yield from ranking_step("1.4", "step_1_4")
        yield from memory_update(state, agent, slot, "1.4", final.task, final.answer, None)


def round_distributions(state: State, agent: str, round_: int) -> Walk[DistributionsDrawn]:
    """Round 1 uses the base set; rounds 2–4 scale it by a multiplier drawn per agent and
    round from the named stream ``p1/<agent>/r<k>/multiplier``. In original-values mode round
    k plays situation A–D instead (``p1/<agent>/r<k>/situation``)."""
    config = config_of(state)
    label = round_label(config, agent, round_)
    recorded = state.records.get(f"draw/{label}")
    if isinstance(recorded, DistributionsDrawn):
        return recorded
    if config.original_values:
        situation = situation_of_round(round_)
        event = DistributionsDrawn(
            scope="phase1",
            agent=agent,
            round=round_,
            label=label,
            multiplier=1.0,
            fixed=True,
            distributions=[list(d) for d in situation.distributions],
            situation=situation.name,
            class_probabilities=dict(situation.probabilities),
        )
        yield from wait([Emit(event)])
        raise AssertionError("unreachable")
    base = rules.DistributionSet.from_incomes(config.base_distributions())
    if round_ == 1:
        multiplier, fixed = 1.0, True
    else:
        multiplier = rules.multiplier_for(config.phase1_multiplier, state.seed, label)
        fixed = config.phase1_multiplier.fixed is not None
    table = rules.scale(base, multiplier)
    event = DistributionsDrawn(
        scope="phase1",
        agent=agent,
        round=round_,
        label=label,
        multiplier=multiplier,
        fixed=fixed,
        distributions=[list(d.incomes) for d in table.distributions],
    )
    yield from wait([Emit(event)])
    raise AssertionError("unreachable")


def round_label(config: FrohlichConfig, agent: str, round_: int) -> str:
    kind = "situation" if config.original_values else "multiplier"
    return f"p1/{agent}/r{round_}/{kind}"


def round_probabilities(config: FrohlichConfig, round_: int) -> dict[IncomeClass, Fraction]:
    """The class probabilities a Phase-1 round is played with: its situation's in
    original-values mode, the run's otherwise."""
    if config.original_values:
        return rules.exact_probabilities(situation_of_round(round_).probabilities)
    return probabilities(config)


def round_choice(
    state: State, agent: str, round_: int, distributions: list[list[int]], principles: str
) -> Walk[Elicited]:
    config = config_of(state)
    language = config.language_of(agent)
    probs = round_probabilities(config, round_)
    table = render.distribution_table(distributions, language=language)
    if config.original_values:
        chances = render_template(
            "situation_chances",
            language,
            probabilities=render.probabilities_text(probs, language),
        )
        table = f"{chances}\n\n{table}"

    def task(feedback: str | None) -> str:
        text = render_template(
            "step_1_3",
            language,
            round=round_,
            principles=principles,
            table=table,
        )
        return render.with_feedback(text, feedback, language, "choice")

    def facts() -> dict[str, Any]:
        dset = rules.DistributionSet.from_incomes(distributions)
        return {
            "step": "1.3",
            "round": round_,
            "distributions": distributions,
            "floors": [d.floor for d in dset.distributions],
            "ranges": [d.range_ for d in dset.distributions],
            "averages": [float(rules.average(d, probs)) for d in dset.distributions],
        }

    result = yield from elicit(
        state,
        agent=agent,
        kind="choice",
        slot=f"p1/{agent}/r{round_}/choice",
        max_attempts=config.attempts.choice,
        build=builder(state, agent, Purpose.CHOICE, task, facts),
        task=task,
    )
    return result


def round_payment(
    state: State, agent: str, round_: int, chosen: Elicited, distributions: list[list[int]]
) -> Walk[Callable[[], str]]:
    key = f"payoff/phase1/{agent}/{round_}"
    recorded = state.records.get(key)
    language = config_of(state).language_of(agent)
    if recorded is None:
        if chosen.value is None:
            reason = "no valid choice was obtained, so no principle could be applied"
            yield from wait([Emit(RoundUnpaid(agent=agent, round=round_, reason=reason))])
        choice = PrincipleChoice.model_validate(chosen.value)
        config = config_of(state)
        dset = rules.DistributionSet.from_incomes(distributions)
        probs = round_probabilities(config, round_)
        applied = rules.apply_principle(choice, dset, probs)
        event = payoff_event(
            state,
            scope="phase1",
            agent=agent,
            round_=round_,
            choice=choice,
            distributions=distributions,
            distribution=applied.distribution_number,
            constraint_satisfied=applied.constraint_satisfied,
            class_label=f"p1/{agent}/r{round_}/class",
            probs=probs,
        )
        yield from wait([Emit(event)])
    assert isinstance(recorded, PayoffAwarded | RoundUnpaid)
    return partial(round_outcome_text, recorded, language)


def round_outcome_text(recorded: PayoffAwarded | RoundUnpaid, language: str) -> str:
    """The "chit": what the agent is told after a paid round."""
    if isinstance(recorded, RoundUnpaid):
        # The one reason a round goes unpaid (``round_payment``), told in the agent's words.
        return word(language, "round_unpaid", round=recorded.round)
    assert recorded.choice is not None
    return render_template(
        "round_outcome",
        language,
        round=recorded.round,
        choice=render.describe(recorded.choice, language),
        distribution=recorded.distribution,
        constraint_note=constraint_note(recorded, language),
        **payoff_summary(recorded, language),
    )
