"""Building blocks shared by both phases: participant requests, step markers, memory
updates and payments."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.frohlich import parsing, render, rules
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import (
    Counterfactual,
    MemoryUpdated,
    PayoffAwarded,
    Scope,
    StepStarted,
)
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State
from maai.domain.frohlich.types import IncomeClass, PrincipleChoice
from maai.domain.walk import Call, Emit, Walk, wait


def config_of(state: State) -> FrohlichConfig:
    assert state.config is not None, "run has not started"
    return state.config


def probabilities(config: FrohlichConfig) -> dict[IncomeClass, Fraction]:
    return _exact_probabilities(tuple(config.class_probabilities.items()))


@cache
def _exact_probabilities(
    items: tuple[tuple[IncomeClass, float], ...],
) -> dict[IncomeClass, Fraction]:
    # Cached: the walk asks for them at every step and Fraction arithmetic is slow.
    return rules.exact_probabilities(dict(items))


def participant_request(
    state: State,
    agent: str,
    address: str,
    purpose: Purpose,
    task: str,
    context: dict[str, Any],
) -> ModelRequest:
    config = config_of(state)
    agent_config = config.agent(agent)
    return ModelRequest(
        address=address,
        agent=agent,
        purpose=purpose,
        model=agent_config.model,
        system=render_template("system", config.language),
        input=render.participant_input(
            state.agents[agent], agent_config.personality, config.language, task
        ),
        temperature=agent_config.temperature,
        context=context,
    )


def builder(
    state: State,
    agent: str,
    purpose: Purpose,
    task: Callable[[str | None], str],
    facts: Callable[[], dict[str, Any]] = dict,
    **context: Any,
) -> Callable[[str, int, str | None], ModelRequest]:
    """A request builder for ``elicit``: the task with the feedback of the last attempt.
    ``facts`` adds context computed only when a request is actually built."""

    def build(address: str, attempt: int, feedback: str | None) -> ModelRequest:
        ctx = {**context, **facts(), "attempt": attempt, "feedback": feedback}
        return participant_request(state, agent, address, purpose, task(feedback), ctx)

    return build


def step_started(
    state: State, step: str, agent: str | None, round_: int | None = None
) -> Walk[None]:
    event = StepStarted(step=step, agent=agent, round=round_)
    if event.key not in state.records:
        yield from wait([Emit(event)])


def memory_update(
    state: State,
    agent: str,
    slot: str,
    step: str,
    task: Callable[[], str],
    answer: str,
    outcome: Callable[[], str] | None,
    round_: int | None = None,
) -> Walk[None]:
    """docs/frohlich.md §5: the agent sees its last input and output (and what followed) and rewrites
    its memory; an over-long memory is sent back once to be shortened, then cut.
    ``task`` and ``outcome`` are rendered only when the request is built."""
    if f"memory/{slot}" in state.records:
        return
    config = config_of(state)
    limit = config.agent(agent).memory_words
    current = state.agents[agent].memory
    first = state.answers.get(slot)
    if first is None:
        outcome_text = outcome() if outcome is not None else None
        text = render_template(
            "memory_update",
            config.language,
            task=task(),
            answer=answer.strip() or "(no answer)",
            outcome=f"\n{outcome_text}\n" if outcome_text else "",
            limit=limit,
        )
        context = {
            "step": step,
            "limit_words": limit,
            "memory": current,
            "outcome": outcome_text,
            "last_output": answer,
        }
        if round_ is not None:
            context["round"] = round_
        yield from wait(
            [Call(participant_request(state, agent, slot, Purpose.MEMORY, text, context))]
        )
    words = parsing.count_words(first.text)
    if words <= limit:
        yield from wait([Emit(_memory(agent, slot, step, first.text.strip(), "update"))])
    shorten_address = f"{slot}/shorten"
    second = state.answers.get(shorten_address)
    if second is None:
        text = render_template(
            "memory_shorten", config.language, words=words, limit=limit, memory=first.text.strip()
        )
        context = {"step": step, "limit_words": limit, "memory": first.text}
        request = participant_request(
            state, agent, shorten_address, Purpose.MEMORY_SHORTEN, text, context
        )
        yield from wait([Call(request)])
    shortened = second.text.strip()
    shortened_words = parsing.count_words(shortened)
    if shortened_words <= limit:
        yield from wait([Emit(_memory(agent, slot, step, shortened, "shortened"))])
    cut = parsing.truncate_words(shortened, limit)
    event = _memory(agent, slot, step, cut, "cut", words_before_cut=shortened_words)
    yield from wait([Emit(event)])


def _memory(
    agent: str, slot: str, step: str, text: str, source: str, words_before_cut: int | None = None
) -> MemoryUpdated:
    return MemoryUpdated(
        agent=agent,
        slot=slot,
        step=step,
        memory=text,
        words=parsing.count_words(text),
        source=source,  # type: ignore[arg-type]
        words_before_cut=words_before_cut,
    )


def payoff_event(
    state: State,
    *,
    scope: Scope,
    agent: str,
    round_: int | None,
    choice: PrincipleChoice | None,
    distributions: list[list[int]],
    distribution: int,
    constraint_satisfied: bool,
    class_label: str,
) -> PayoffAwarded:
    """Draw the agent's class and pay it; one counterfactual computation feeds both the
    event and the text the agent is shown."""
    config = config_of(state)
    probs = probabilities(config)
    dset = rules.DistributionSet.from_incomes(distributions)
    income_class = rules.draw_class(state.seed, class_label, probs)
    rows = counterfactual_rows(dset, income_class, probs)
    mine = next(r for r in rows if r.distribution == distribution)
    return PayoffAwarded(
        scope=scope,
        agent=agent,
        round=round_,
        choice=choice,
        distribution=distribution,
        constraint_satisfied=constraint_satisfied,
        class_label=class_label,
        income_class=income_class,
        income=mine.income,
        payoff_cents=mine.payoff_cents,
        balance_cents=state.agents[agent].bank_cents + mine.payoff_cents,
        counterfactuals=rows,
    )


def counterfactual_rows(
    dset: rules.DistributionSet, income_class: IncomeClass, probs: dict[IncomeClass, Fraction]
) -> list[Counterfactual]:
    return [
        Counterfactual(
            distribution=row.distribution_number,
            income=row.income,
            payoff_cents=row.payoff_cents,
            picked_by=[render.pick_text(p) for p in row.picked_by],
        )
        for row in rules.counterfactuals(dset, income_class, probs)
    ]


def constraint_note(event: PayoffAwarded) -> str:
    if event.constraint_satisfied:
        return ""
    return (
        " (no distribution meets your constraint, so the one that comes closest to meeting it "
        "was chosen)"
    )


def payoff_summary(event: PayoffAwarded) -> dict[str, str]:
    return {
        "income_class": event.income_class.label,
        "income": render.dollars(event.income),
        "payoff": render.cents(event.payoff_cents),
        "balance": render.cents(event.balance_cents),
        "counterfactuals": render.counterfactual_table(event.counterfactuals, event.distribution),
    }
