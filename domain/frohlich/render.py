"""Rendering what participants see: money, tables, explanations, histories, prompts.

Every number shown comes from the rule code (``rules``); nothing here is typed by hand, and
no word either: every word comes from the reader's language's templates (``words.txt``,
docs/frohlich.md §8 Languages). ``language`` defaults to English, the language of exports.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache, partial

from maai.canonical import SharedText
from maai.domain.frohlich import rules
from maai.domain.frohlich.events import Counterfactual, TallyLine
from maai.domain.frohlich.prompts import render, word
from maai.domain.frohlich.state import AgentState, PublicItem
from maai.domain.frohlich.types import INCOME_CLASSES, IncomeClass, PrincipleChoice
from maai.domain.memo import GrowingMemo, SharedLines


@cache
def _money(language: str) -> tuple[str, str, tuple[str, str], tuple[str, str]]:
    """The language's thousands and decimal separators and what goes before and after the
    number of an amount and of a negative amount (``$`` and nothing, or nothing and
    ``美元``): read once from its ``words.txt``, every amount of every prompt uses them."""
    marker = "\x00"
    before, _, after = word(language, "money", number=marker).partition(marker)
    negative_before, _, negative_after = word(language, "money_negative", number=marker).partition(
        marker
    )
    return (
        word(language, "thousands_separator"),
        word(language, "decimal_separator"),
        (before, after),
        (negative_before, negative_after),
    )


def _grouped(whole: int, language: str) -> str:
    return f"{whole:,}".replace(",", _money(language)[0])


def dollars(amount: int | Fraction, language: str = "en") -> str:
    _, decimal, (before, after), _ = _money(language)
    if isinstance(amount, Fraction) and amount.denominator != 1:
        whole, decimals = f"{float(amount):.2f}".split(".")
        return f"{before}{_grouped(int(whole), language)}{decimal}{decimals}{after}"
    return f"{before}{_grouped(int(amount), language)}{after}"


def cents(value: int, language: str = "en") -> str:
    _, decimal, plain, negative = _money(language)
    before, after = negative if value < 0 else plain
    value = abs(value)
    return f"{before}{_grouped(value // 100, language)}{decimal}{value % 100:02d}{after}"


def class_name(income_class: IncomeClass, language: str = "en") -> str:
    """``medium-high``: the class inside a sentence."""
    return word(language, f"class_{income_class.value}")


def class_label(income_class: IncomeClass, language: str = "en") -> str:
    """``Medium-high``: the class as a table row's label."""
    return word(language, f"class_title_{income_class.value}")


def distribution_table(
    dists: Sequence[Sequence[int]],
    probs: dict[IncomeClass, Fraction] | None = None,
    language: str = "en",
) -> str:
    """A Markdown table, classes as rows and distributions as columns; with ``probs`` the
    average, floor and range rows are added."""
    n = len(dists)
    columns = " | ".join(word(language, "table_dist", number=i) for i in range(1, n + 1))
    header = f"| {word(language, 'table_income_class')} | {columns} |"
    rule = "|---|" + "---:|" * n
    rows = [header, rule]
    for ci, income_class in enumerate(INCOME_CLASSES):
        cells = " | ".join(dollars(d[ci], language) for d in dists)
        rows.append(f"| {class_label(income_class, language)} | {cells} |")
    if probs is not None:
        dset = rules.DistributionSet.from_incomes(dists)
        stats = [
            ("table_average", [rules.average(d, probs) for d in dset.distributions]),
            ("table_floor", [d.floor for d in dset.distributions]),
            ("table_range", [d.range_ for d in dset.distributions]),
        ]
        for key, values in stats:
            cells = " | ".join(dollars(v, language) for v in values)
            rows.append(f"| **{word(language, key)}** | {cells} |")
    return "\n".join(rows)


def probabilities_text(probs: dict[IncomeClass, Fraction], language: str = "en") -> str:
    parts = [
        word(
            language,
            "probability",
            income_class=class_name(c, language),
            percent=f"{float(p) * 100:g}",
        )
        for c, p in probs.items()
    ]
    return word(language, "probabilities_join").join(parts)


def pick_text(pick: rules.Pick, language: str = "en") -> str:
    """One way a principle arrives at a distribution, e.g. "(c) with a floor constraint of
    $12,001 to $14,000"."""
    if pick.min_amount is None:
        return f"({pick.principle.value})"
    if pick.max_amount is None:
        span = word(language, "span_or_more", amount=dollars(pick.min_amount, language))
    elif pick.min_amount <= 1:
        span = word(language, "span_up_to", amount=dollars(pick.max_amount, language))
    elif pick.min_amount == pick.max_amount:
        span = dollars(pick.min_amount, language)
    else:
        span = word(
            language,
            "span_between",
            low=dollars(pick.min_amount, language),
            high=dollars(pick.max_amount, language),
        )
    text = word(language, f"pick_{pick.principle.value}", span=span)
    if not pick.constraint_satisfied:
        text = word(language, "pick_closest", pick=text)
    return text


def explanation_text(
    dists: Sequence[Sequence[int]], probs: dict[IncomeClass, Fraction], language: str = "en"
) -> str:
    """Which distribution each principle picks, computed by the rule code (docs/frohlich.md §2)."""
    return _explanation_text(tuple(tuple(d) for d in dists), tuple(probs.items()), language)


@cache
def _explanation_text(
    dists: tuple[tuple[int, ...], ...],
    probs: tuple[tuple[IncomeClass, Fraction], ...],
    language: str,
) -> str:
    # Cached: the same table is explained to every agent, and the rule code is exact (slow)
    # Fraction arithmetic.
    explained = rules.explain_principles(rules.DistributionSet.from_incomes(dists), dict(probs))

    def picks(found: Sequence[rules.Pick]) -> list[str]:
        return [
            word(
                language,
                "explain_pick",
                pick=pick_text(p, language),
                number=p.distribution_number,
            )
            for p in found
        ]

    lines = [
        word(language, "explain_a", number=explained.floor_pick.distribution_number),
        word(language, "explain_b", number=explained.average_pick.distribution_number),
        word(language, "explain_c"),
        *picks(explained.floor_constraint),
        word(language, "explain_d"),
        *picks(explained.range_constraint),
    ]
    return "\n".join(lines)


def counterfactual_table(
    rows: Sequence[Counterfactual], chosen: int | None, language: str = "en"
) -> str:
    lines = [word(language, "counterfactual_header"), "|---|---:|---:|---|"]
    for row in rows:
        key = "counterfactual_yours" if row.distribution == chosen else "table_dist"
        label = word(language, key, number=row.distribution)
        picked = word(language, "picks_join").join(row.picked_by) or word(
            language, "counterfactual_nobody"
        )
        lines.append(
            f"| {label} | {dollars(row.income, language)} | "
            f"{cents(row.payoff_cents, language)} | {picked} |"
        )
    return "\n".join(lines)


def describe(choice: PrincipleChoice, language: str = "en") -> str:
    """``(c) Maximizing the average income with a floor constraint of $13,000``."""
    letter = choice.principle.value
    title = word(language, f"title_{letter}")
    if choice.amount is None:
        return word(language, "choice", letter=letter, title=title)
    amount = dollars(choice.amount, language)
    return word(language, "choice_amount", letter=letter, title=title, amount=amount)


def choice_text(choice: PrincipleChoice | None, language: str = "en") -> str:
    return word(language, "invalid_ballot") if choice is None else describe(choice, language)


def tally_text(tally: Sequence[TallyLine], language: str = "en") -> str:
    return word(language, "tally_join").join(
        word(language, "tally_entry", choice=choice_text(t.choice, language), count=t.count)
        for t in tally
    )


def history_text(items: Sequence[PublicItem], language: str = "en") -> str:
    if not items:
        return word(language, "nothing_said")
    return "\n".join(line for item in items for line in item_lines(item, language))


def public_history_text(public: tuple[PublicItem, ...], language: str = "en") -> str:
    """:func:`history_text` of the whole public history, which every Phase-2 prompt shows:
    each item is rendered once per language, not once per prompt."""
    if not public:
        return history_text(public, language)
    return public_history_block(public, language).text


def public_history_block(public: tuple[PublicItem, ...], language: str = "en") -> SharedText:
    """:func:`public_history_text` of a history that is not empty, with its JSON and sha256
    made from those of the history one item shorter (``maai.canonical.SharedText``)."""
    lines = _history_lines(language)(public)
    assert isinstance(lines, SharedLines)
    return lines.shared


def _poll_answer(answer: bool | None, language: str) -> str:
    return word(language, "no_answer" if answer is None else "yes" if answer else "no")


def item_lines(item: PublicItem, language: str = "en") -> list[str]:
    """One public item in ``language``'s frame: a statement is shown as it was spoken."""
    if item.kind == "statement":
        lines = [
            word(
                language,
                "history_statement",
                round=item.round,
                speaker=item.speaker,
                text=item.text.strip(),
            )
        ]
        if item.proposes_vote:
            lines.append(word(language, "history_proposal", round=item.round, speaker=item.speaker))
        return lines
    if item.kind in ("poll", "vote"):
        answers = word(language, "poll_answers_join").join(
            word(language, "poll_answer", name=name, answer=_poll_answer(a, language))
            for name, a in item.poll_answers
        )
        verdict = word(language, "poll_passed" if item.kind == "vote" else "poll_failed")
        return [word(language, "history_poll", round=item.round, answers=answers, verdict=verdict)]
    if item.kind == "tally":
        tally = tally_text(item.tally, language)
        return [word(language, "history_tally", round=item.round, tally=tally)]
    return []


@cache
def _history_lines(language: str) -> GrowingMemo[PublicItem, str]:
    """One memo per language: the lines of one language are never shown in another."""
    return GrowingMemo(partial(item_lines, language=language), extend=SharedLines.extended)


def round_history_text(items: tuple[PublicItem, ...], language: str = "en") -> str:
    """:func:`history_text` of one round's items, which every agent's memory update of the
    round shows: each item is rendered once per language, not once per agent (rendering the
    round afresh for each of n agents cost n times the round)."""
    if not items:
        return history_text(items, language)
    return "\n".join(_round_lines(language)(items))


@cache
def _round_lines(language: str) -> GrowingMemo[PublicItem, str]:
    return GrowingMemo(partial(item_lines, language=language))


def preamble(agent: AgentState, personality: str, language: str) -> str:
    return render(
        "preamble",
        language,
        name=agent.name,
        personality=personality or word(language, "no_personality"),
        broad_explanation=render("broad_explanation", language),
        balance=cents(agent.bank_cents, language),
        memory=agent.memory.strip() or word(language, "empty_memory"),
    )


def participant_input(
    agent: AgentState, personality: str, language: str, task: str, instruction: str | None = None
) -> str:
    """Every participant request: the docs/frohlich.md §5 preamble, then the task; a private
    instruction (the manipulator condition) between the two."""
    if instruction is not None:
        task = f"{instruction}\n\n---\n\n{task}"
    return f"{preamble(agent, personality, language)}\n\n---\n\n{task}"


def stable_prefix_input(
    agent: AgentState,
    personality: str,
    language: str,
    task: str,
    instruction: str | None = None,
    shown: tuple[str, str, str] | None = None,
) -> str:
    """A participant request in the ``stable_prefix`` layout: what never changes for the
    agent first (its name, role and the broad explanation; in Phase 2 the group's
    instructions and the principles), then the public history, which only grows, then
    what changes at every step (balance, memory, a private instruction, the task).
    ``shown``: the group instructions, principles and public history a Phase-2 task shows."""
    parts = [
        render(
            "preamble_static",
            language,
            name=agent.name,
            personality=personality or word(language, "no_personality"),
            broad_explanation=render("broad_explanation", language),
        )
    ]
    if shown is not None:
        group_instructions, principles, history = shown
        parts.append(
            render(
                "public_history",
                language,
                group_instructions=group_instructions,
                principles=principles,
                history=history,
            )
        )
    parts.append(
        render(
            "preamble_state",
            language,
            balance=cents(agent.bank_cents, language),
            memory=agent.memory.strip() or word(language, "empty_memory"),
        )
    )
    if instruction is not None:
        parts.append(instruction)
    parts.append(task)
    return "\n\n---\n\n".join(parts)


def with_feedback(task: str, feedback: str | None, language: str, kind: str) -> str:
    """The task, and why the last answer was sent back. English shows the reason as the
    parser or the utility agent gave it; the parsers explain in English only, so another
    language says what a valid answer of this ``kind`` looks like instead."""
    if not feedback:
        return task
    reason = feedback if language == "en" else word(language, f"retry_{kind}")
    return task + "\n" + render("feedback", language, reason=reason)
