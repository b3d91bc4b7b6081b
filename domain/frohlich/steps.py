"""Building blocks shared by both phases: participant requests, step markers, memory
updates and payments."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache, partial
from typing import Any

from maai.domain.address import attempt_address
from maai.domain.calls import ModelRequest
from maai.domain.frohlich import manipulator, parsing, render, rules
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import (
    AnswerMissing,
    AnswerRejected,
    Counterfactual,
    MemoryUpdated,
    PayoffAwarded,
    Scope,
    StepStarted,
)
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.prompts import word
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State, memory_over
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
    history: str | None = None,
) -> ModelRequest:
    """A participant's request. ``history``: the public history a Phase-2 task shows, where
    the ``stable_prefix`` layout puts it (the ``seed`` layout has it in the task already)."""
    config = config_of(state)
    agent_config = config.agent(agent)
    language = config.language_of(agent)
    target = manipulator.target_for(state, agent) if config.manipulator else None
    instruction = None
    if target is not None:
        instruction = manipulator.instruction(target, language)
        context = {**context, "steer_to": target.value}
    if config.prompt_layout == "stable_prefix":
        shown = None
        if history is not None:
            shown = (*group_texts(state, language), history)
        text = render.stable_prefix_input(
            state.agents[agent], agent_config.personality, language, task, instruction, shown
        )
    else:
        text = render.participant_input(
            state.agents[agent], agent_config.personality, language, task, instruction
        )
    return ModelRequest(
        address=address,
        agent=agent,
        purpose=purpose,
        model=agent_config.model,
        system=render_template("system", language),
        input=text,
        temperature=agent_config.temperature,
        context=context,
    )


def group_texts(state: State, language: str) -> tuple[str, str]:
    """The group's instructions and the principles, as every Phase-2 task shows them."""
    config = config_of(state)
    return (
        render_template(
            "group_instructions",
            language,
            members=", ".join(a.name for a in config.agents),
            rounds=config.phase2_rounds,
        ),
        render_template("principles", language),
    )


def builder(
    state: State,
    agent: str,
    purpose: Purpose,
    task: Callable[[str | None], str],
    facts: Callable[[], dict[str, Any]] = dict,
    history: str | None = None,
    **context: Any,
) -> Callable[[str, int, str | None], ModelRequest]:
    """A request builder for ``elicit``: the task with the feedback of the last attempt.
    ``facts`` adds context computed only when a request is actually built; ``history`` as
    for ``participant_request``."""

    def build(address: str, attempt: int, feedback: str | None) -> ModelRequest:
        ctx = {**context, **facts(), "attempt": attempt, "feedback": feedback}
        return participant_request(
            state, agent, address, purpose, task(feedback), ctx, history=history
        )

    return build


def step_started(
    state: State, step: str, agent: str | None, round_: int | None = None
) -> Walk[None]:
    event = StepStarted(step=step, agent=agent, round=round_)
    if event.key not in state.records:
        yield from wait([Emit(event)])


EMPTY_ANSWER = word("en", "retry_free_text")
"""Why an empty (blank or null) free-text answer is asked again, as the records keep it;
told to the participant in its language (``render.with_feedback``)."""

FreeTextKind = str
"""``memory``, ``statement`` or ``reasoning``: the ``attempts`` key that bounds the asking."""


def free_text_address(slot: str, attempt: int) -> str:
    """Attempt 1 of a free-text call is the slot itself (as it always was); attempt ``n`` of
    one asked again after an empty answer is ``<slot>/<n>``."""
    return slot if attempt == 1 else attempt_address(slot, attempt)


def free_text(
    state: State,
    *,
    agent: str,
    kind: FreeTextKind,
    slot: str,
    max_attempts: int,
    build: Callable[[str, str | None], ModelRequest],
) -> Walk[str | None]:
    """Ask for free text (a memory, a statement, a reasoning) and return the answer as it
    came. An empty answer is never used: it is recorded as rejected and asked again
    (``build(address, feedback)`` tells the participant it was empty), up to
    ``max_attempts`` times; after that the slot is recorded missing and None is returned
    (docs/rules.md). An answer that is not empty at the first attempt records nothing more
    than it always did."""
    feedback: str | None = None
    for attempt in range(1, max_attempts + 1):
        address = free_text_address(slot, attempt)
        answer = state.answers.get(address)
        if answer is None:
            yield from wait([Call.later(address, partial(build, address, feedback))])
        text = answer.text or ""
        if text.strip():
            return text
        if f"parse/{address}" not in state.records:
            rejected = AnswerRejected(
                agent=agent,
                kind=kind,
                slot=slot,
                address=address,
                attempt=attempt,
                source="parser",
                raw_text=text,
                reason=EMPTY_ANSWER,
            )
            yield from wait([Emit(rejected)])
        feedback = EMPTY_ANSWER
    if f"missing/{slot}" not in state.records:
        missing = AnswerMissing(
            agent=agent, kind=kind, slot=slot, attempts=max_attempts, last_reason=EMPTY_ANSWER
        )
        yield from wait([Emit(missing)])
    return None


def memory_done(state: State, slot: str) -> bool:
    """Whether the memory update of ``slot`` is over (``state.memory_over``)."""
    return memory_over(state.records, slot)


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
    """docs/frohlich.md §5: the agent sees its last input and output (and what followed) and
    rewrites its memory; an over-long memory is sent back once to be shortened, then cut.
    ``task`` and ``outcome`` are rendered only when the request is built.

    An empty answer is asked again (``attempts.memory``); if every answer is empty the slot
    is recorded missing and the memory stays as it was. An empty shortened memory is asked
    again too; if every one is empty, the over-long memory is cut instead."""
    if memory_done(state, slot):
        return
    config = config_of(state)
    language = config.language_of(agent)
    limit = config.memory_limit(agent)
    current = state.agents[agent].memory
    attempts = config.attempts.memory

    def update_request(address: str, feedback: str | None) -> ModelRequest:
        outcome_text = outcome() if outcome is not None else None
        text = render_template(
            "memory_update",
            language,
            task=task(),
            answer=answer.strip() or word(language, "no_answer_given"),
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
        if feedback is not None:
            context["feedback"] = feedback
        text = render.with_feedback(text, feedback, language, "free_text")
        return participant_request(state, agent, address, Purpose.MEMORY, text, context)

    first = yield from free_text(
        state, agent=agent, kind="memory", slot=slot, max_attempts=attempts, build=update_request
    )
    if first is None:
        return
    words = parsing.count_words(first)
    if words <= limit:
        yield from wait([Emit(_memory(agent, slot, step, first.strip(), "update"))])

    def shorten_request(address: str, feedback: str | None) -> ModelRequest:
        text = render_template(
            "memory_shorten", language, words=words, limit=limit, memory=first.strip()
        )
        context: dict[str, Any] = {"step": step, "limit_words": limit, "memory": first}
        if feedback is not None:
            context["feedback"] = feedback
        text = render.with_feedback(text, feedback, language, "free_text")
        return participant_request(state, agent, address, Purpose.MEMORY_SHORTEN, text, context)

    second = yield from free_text(
        state,
        agent=agent,
        kind="memory",
        slot=f"{slot}/shorten",
        max_attempts=attempts,
        build=shorten_request,
    )
    shortened = first.strip() if second is None else second.strip()
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
    probs: dict[IncomeClass, Fraction] | None = None,
) -> PayoffAwarded:
    """Draw the agent's class and pay it; one counterfactual computation feeds both the
    event and the text the agent is shown (in its language). ``probs``: the run's class
    probabilities unless given (an original-values round has its situation's)."""
    config = config_of(state)
    if probs is None:
        probs = probabilities(config)
    dset = rules.DistributionSet.from_incomes(distributions)
    income_class = rules.draw_class(state.seed, class_label, probs)
    rows = counterfactual_rows(dset, income_class, probs, config.language_of(agent))
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
    dset: rules.DistributionSet,
    income_class: IncomeClass,
    probs: dict[IncomeClass, Fraction],
    language: str = "en",
) -> list[Counterfactual]:
    return [
        Counterfactual(
            distribution=row.distribution_number,
            income=row.income,
            payoff_cents=row.payoff_cents,
            picked_by=[render.pick_text(p, language) for p in row.picked_by],
        )
        for row in rules.counterfactuals(dset, income_class, probs)
    ]


def constraint_note(event: PayoffAwarded, language: str = "en") -> str:
    if event.constraint_satisfied:
        return ""
    return word(language, "constraint_note")


def payoff_summary(event: PayoffAwarded, language: str = "en") -> dict[str, str]:
    return {
        "income_class": render.class_name(event.income_class, language),
        "income": render.dollars(event.income, language),
        "payoff": render.cents(event.payoff_cents, language),
        "balance": render.cents(event.balance_cents, language),
        "counterfactuals": render.counterfactual_table(
            event.counterfactuals, event.distribution, language
        ),
    }
