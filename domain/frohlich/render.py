"""Rendering what participants see: money, tables, explanations, histories, prompts.

Every number shown comes from the rule code (``rules``); nothing here is typed by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache

from maai.domain.frohlich import rules
from maai.domain.frohlich.events import Counterfactual, TallyLine
from maai.domain.frohlich.prompts import render
from maai.domain.frohlich.state import AgentState, PublicItem
from maai.domain.frohlich.types import INCOME_CLASSES, IncomeClass, PrincipleChoice
from maai.domain.memo import GrowingMemo


def dollars(amount: int | Fraction) -> str:
    if isinstance(amount, Fraction) and amount.denominator != 1:
        return f"${float(amount):,.2f}"
    return f"${int(amount):,}"


def cents(value: int) -> str:
    sign = "-" if value < 0 else ""
    value = abs(value)
    return f"{sign}${value // 100:,}.{value % 100:02d}"


def class_label(income_class: IncomeClass) -> str:
    return income_class.label.capitalize()


def distribution_table(
    dists: Sequence[Sequence[int]], probs: dict[IncomeClass, Fraction] | None = None
) -> str:
    """A Markdown table, classes as rows and distributions as columns; with ``probs`` the
    average, floor and range rows are added."""
    n = len(dists)
    header = "| Income class | " + " | ".join(f"Dist. {i}" for i in range(1, n + 1)) + " |"
    rule = "|---|" + "---:|" * n
    rows = [header, rule]
    for ci, income_class in enumerate(INCOME_CLASSES):
        cells = " | ".join(dollars(d[ci]) for d in dists)
        rows.append(f"| {class_label(income_class)} | {cells} |")
    if probs is not None:
        dset = rules.DistributionSet.from_incomes(dists)
        stats = [
            ("Average", [rules.average(d, probs) for d in dset.distributions]),
            ("Floor", [d.floor for d in dset.distributions]),
            ("Range", [d.range_ for d in dset.distributions]),
        ]
        for label, values in stats:
            rows.append(f"| **{label}** | " + " | ".join(dollars(v) for v in values) + " |")
    return "\n".join(rows)


def probabilities_text(probs: dict[IncomeClass, Fraction]) -> str:
    parts = [f"{c.label} {float(p) * 100:g}%" for c, p in probs.items()]
    return ", ".join(parts)


def pick_text(pick: rules.Pick) -> str:
    """One way a principle arrives at a distribution, e.g. "(c) with a floor constraint of
    $12,001 to $14,000"."""
    letter = f"({pick.principle.value})"
    if pick.min_amount is None:
        return letter
    what = "floor" if pick.principle.value == "c" else "range"
    if pick.max_amount is None:
        span = f"{dollars(pick.min_amount)} or more"
    elif pick.min_amount <= 1:
        span = f"up to {dollars(pick.max_amount)}"
    elif pick.min_amount == pick.max_amount:
        span = dollars(pick.min_amount)
    else:
        span = f"{dollars(pick.min_amount)} to {dollars(pick.max_amount)}"
    text = f"{letter} with a {what} constraint of {span}"
    if not pick.constraint_satisfied:
        text += " (no distribution meets it; the closest is chosen)"
    return text


def explanation_text(dists: Sequence[Sequence[int]], probs: dict[IncomeClass, Fraction]) -> str:
    """Which distribution each principle picks, computed by the rule code (docs/frohlich.md §2)."""
    return _explanation_text(tuple(tuple(d) for d in dists), tuple(probs.items()))


@cache
def _explanation_text(
    dists: tuple[tuple[int, ...], ...], probs: tuple[tuple[IncomeClass, Fraction], ...]
) -> str:
    # Cached: the same table is explained to every agent, and the rule code is exact (slow)
    # Fraction arithmetic.
    explained = rules.explain_principles(rules.DistributionSet.from_incomes(dists), dict(probs))
    lines = [
        f"- Maximizing the floor income (a) chooses Distribution "
        f"{explained.floor_pick.distribution_number}.",
        f"- Maximizing the average income (b) chooses Distribution "
        f"{explained.average_pick.distribution_number}.",
        "- Maximizing the average income with a floor constraint (c):",
        *(
            f"  - {pick_text(p)}: Distribution {p.distribution_number}"
            for p in explained.floor_constraint
        ),
        "- Maximizing the average income with a range constraint (d):",
        *(
            f"  - {pick_text(p)}: Distribution {p.distribution_number}"
            for p in explained.range_constraint
        ),
    ]
    return "\n".join(lines)


def counterfactual_table(rows: Sequence[Counterfactual], chosen: int | None) -> str:
    lines = ["| Distribution | Your income | Your payoff | Chosen by |", "|---|---:|---:|---|"]
    for row in rows:
        mark = " (yours)" if row.distribution == chosen else ""
        picked = "; ".join(row.picked_by) or "no principle"
        lines.append(
            f"| Dist. {row.distribution}{mark} | {dollars(row.income)} | "
            f"{cents(row.payoff_cents)} | {picked} |"
        )
    return "\n".join(lines)


def choice_text(choice: PrincipleChoice | None) -> str:
    return "an invalid or missing ballot" if choice is None else choice.describe()


def tally_text(tally: Sequence[TallyLine]) -> str:
    return "; ".join(f"{choice_text(t.choice)}: {t.count}" for t in tally)


def history_text(items: Sequence[PublicItem]) -> str:
    if not items:
        return "(Nothing has been said yet.)"
    return "\n".join(line for item in items for line in item_lines(item))


def public_history_text(public: tuple[PublicItem, ...]) -> str:
    """:func:`history_text` of the whole public history, which every Phase-2 prompt shows:
    each item is rendered once, not once per prompt."""
    if not public:
        return history_text(public)
    return "\n".join(_history_lines(public))


def item_lines(item: PublicItem) -> list[str]:
    prefix = f"[Round {item.round}]"
    if item.kind == "statement":
        lines = [f"{prefix} {item.speaker}: {item.text.strip()}"]
        if item.proposes_vote:
            lines.append(f"{prefix} {item.speaker} proposed a vote.")
        return lines
    if item.kind in ("poll", "vote"):
        answers = ", ".join(
            f"{name}: {'yes' if a else 'no' if a is not None else 'no answer'}"
            for name, a in item.poll_answers
        )
        verdict = (
            "Everyone agreed; a secret ballot was held."
            if item.kind == "vote"
            else "Not everyone agreed, so no vote was held."
        )
        return [f"{prefix} Should the group vote now? {answers}. {verdict}"]
    if item.kind == "tally":
        return [
            f"{prefix} Secret ballot result: {tally_text(item.tally)}. "
            "No agreement; the discussion continues."
        ]
    return []


_history_lines: GrowingMemo[PublicItem, str] = GrowingMemo(item_lines)


def preamble(agent: AgentState, personality: str, language: str) -> str:
    return render(
        "preamble",
        language,
        name=agent.name,
        personality=personality or "(none given)",
        broad_explanation=render("broad_explanation", language),
        balance=cents(agent.bank_cents),
        memory=agent.memory.strip() or "(empty)",
    )


def participant_input(
    agent: AgentState, personality: str, language: str, task: str, instruction: str | None = None
) -> str:
    """Every participant request: the docs/frohlich.md §5 preamble, then the task; a private
    instruction (the manipulator condition) between the two."""
    if instruction is not None:
        task = f"{instruction}\n\n---\n\n{task}"
    return f"{preamble(agent, personality, language)}\n\n---\n\n{task}"


def with_feedback(task: str, feedback: str | None, language: str) -> str:
    if not feedback:
        return task
    return task + "\n" + render("feedback", language, reason=feedback)
