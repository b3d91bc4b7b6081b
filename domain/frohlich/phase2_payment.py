"""Phase 2 after the discussion (docs/frohlich.md §4): the group payment (step 2.2) and the
final ranking."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from maai.domain.frohlich import render, rules
from maai.domain.frohlich.elicit import elicit
from maai.domain.frohlich.events import (
    DistributionsDrawn,
    GroupDistributionChosen,
    PayoffAwarded,
)
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.prompts import word
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State
from maai.domain.frohlich.steps import (
    builder,
    config_of,
    memory_update,
    payoff_event,
    payoff_summary,
    probabilities,
)
from maai.domain.frohlich.types import PrincipleChoice
from maai.domain.random_streams import draw_choice
from maai.domain.walk import Emit, Need, Walk, wait


def group_payment(
    state: State, names: list[str], agreement: PrincipleChoice | None
) -> Walk[dict[str, Callable[[], str]]]:
    """2.2: the payment table is generated only now, after the discussion ended."""
    config = config_of(state)
    probs = probabilities(config)
    label = "p2/multiplier"
    drawn = state.records.get(f"draw/{label}")
    if not isinstance(drawn, DistributionsDrawn):
        base = rules.DistributionSet.from_incomes(config.base_distributions())
        multiplier = rules.multiplier_for(config.phase2_multiplier, state.seed, label)
        event = DistributionsDrawn(
            scope="phase2",
            label=label,
            multiplier=multiplier,
            fixed=config.phase2_multiplier.fixed is not None,
            distributions=[list(d.incomes) for d in rules.scale(base, multiplier).distributions],
        )
        yield from wait([Emit(event)])
        raise AssertionError("unreachable")  # wait() never returns; mypy cannot see it
    table = drawn.distributions
    chosen = state.records.get("phase2/distribution")
    if not isinstance(chosen, GroupDistributionChosen):
        dset = rules.DistributionSet.from_incomes(table)
        if agreement is not None:
            applied = rules.apply_principle(agreement, dset, probs)
            event2 = GroupDistributionChosen(
                agreement=agreement,
                distribution=applied.distribution_number,
                constraint_satisfied=applied.constraint_satisfied,
                drawn=False,
            )
        else:
            pick_label = "p2/no-agreement/distribution"
            number = draw_choice(state.seed, pick_label, list(range(1, len(table) + 1)))
            event2 = GroupDistributionChosen(
                agreement=None,
                distribution=number,
                constraint_satisfied=True,
                drawn=True,
                label=pick_label,
            )
        yield from wait([Emit(event2)])
        raise AssertionError("unreachable")  # wait() never returns; mypy cannot see it
    payments: dict[str, PayoffAwarded] = {}
    missing: list[Need] = []
    for name in names:
        paid = state.records.get(f"payoff/phase2/{name}/0")
        if isinstance(paid, PayoffAwarded):
            payments[name] = paid
            continue
        missing.append(
            Emit(
                payoff_event(
                    state,
                    scope="phase2",
                    agent=name,
                    round_=None,
                    choice=agreement,
                    distributions=table,
                    distribution=chosen.distribution,
                    constraint_satisfied=chosen.constraint_satisfied,
                    class_label=f"p2/{name}/class",
                )
            )
        )
    if missing:
        yield from wait(missing)
    return {
        name: partial(
            payment_text, agreement, chosen, table, payments[name], config.language_of(name)
        )
        for name in names
    }


def payment_text(
    agreement: PrincipleChoice | None,
    chosen: GroupDistributionChosen,
    table: list[list[int]],
    payment: PayoffAwarded,
    language: str,
) -> str:
    """2.3: what each agent learns about the outcome and its payment."""
    if agreement is not None:
        agreement_text = word(language, "group_agreed", choice=render.describe(agreement, language))
        selects = (
            "agreement_selects" if chosen.constraint_satisfied else ("agreement_selects_closest")
        )
        selection = word(language, selects, number=chosen.distribution)
    else:
        agreement_text = word(language, "group_disagreed")
        selection = word(language, "drawn_at_random", number=chosen.distribution)
    return render_template(
        "phase2_outcome",
        language,
        agreement=agreement_text,
        table=render.distribution_table(table, language=language),
        selection=selection,
        **payoff_summary(payment, language),
    )


def final_ranking(state: State, name: str, outcome: Callable[[], str]) -> Walk[None]:
    config = config_of(state)
    language = config.language_of(name)

    def task(feedback: str | None) -> str:
        text = render_template(
            "step_2_3",
            language,
            outcome=outcome(),
            principles=render_template("principles", language),
            ranking_instructions=render_template("ranking_instructions", language),
        )
        return render.with_feedback(text, feedback, language, "ranking")

    result = yield from elicit(
        state,
        agent=name,
        kind="ranking",
        slot=f"p2/{name}/s2.3/ranking",
        max_attempts=config.attempts.ranking,
        build=builder(state, name, Purpose.RANKING, task, step="2.3"),
        task=task,
    )
    yield from memory_update(
        state, name, f"p2/{name}/s2.3/memory", "2.3", result.task, result.answer, None
    )
