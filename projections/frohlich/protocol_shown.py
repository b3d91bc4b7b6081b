"""Rules that read back what each prompt showed (docs/frohlich.md §3, §5): the round's
table and its chances, the told outcome, the balance and the memory, and the step-1.2
explanation, each compared with the recorded draws, payoffs and memories and recomputed with
``reference``. Each reads only its own part of the prompt (``prompt_parts``) with the words
of ``reference_words``, never the domain's templates."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction

from maai.domain.events import ModelCallRequested
from maai.domain.frohlich.events import MemoryUpdated, PayoffAwarded
from maai.projections.frohlich import reference
from maai.projections.frohlich.prompt_parts import Memories, outcome_part, split_prompt
from maai.projections.frohlich.protocol_base import (
    Audit,
    EntryCheck,
    Violation,
    in_one_pass,
    rule,
)
from maai.projections.frohlich.reference_words import PromptWords
from maai.projections.history import Entry


def _shown_table(text: str, marker: str, words: PromptWords) -> list[list[int]] | None:
    """The distributions of the first Markdown table after ``marker``, columns as lists."""
    at = text.find(marker)
    if at < 0:
        return None
    rows = []
    for match in words.table_row.finditer(text, at):
        if words.class_of(match.group(1)) not in reference.CLASSES:
            break
        rows.append([words.dollars(c) for c in match.group(2).split("|")])
        if len(rows) == len(reference.CLASSES):
            break
    if len(rows) != len(reference.CLASSES):
        return None
    return [list(col) for col in zip(*rows, strict=True)]


def _shown_chances(text: str, words: PromptWords) -> list[Fraction] | None:
    """The class chances stated after the round's table heading ("high 10%, medium-high
    20%, ..." in the reader's words), high to low; ``None`` unless each class is stated."""
    at = text.find(words.round_table)
    if at < 0:
        return None
    names = sorted(words.classes, key=len, reverse=True)  # "medium-high" before "medium"
    chance = re.compile("(" + "|".join(re.escape(n) for n in names) + r") ?(\d+(?:\.\d+)?) ?%")
    found: dict[str, str] = {}
    for match in chance.finditer(text, at):
        found.setdefault(reference.CLASSES[words.classes.index(match.group(1))], match.group(2))
    if sorted(found) != sorted(reference.CLASSES):
        return None
    return [reference.fraction_of(found[c]) / 100 for c in reference.CLASSES]


@rule(
    "prompt_round_table",
    "§3 1.3",
    "each Phase-1 choice prompt names its round and shows exactly the table drawn for that "
    "agent and round (the table the round is paid from)",
)
def prompt_round_table(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_round_tables)


def _unlocated(rule: str, seq: int, address: str) -> Violation:
    detail = f"{address}: the task cannot be located (the memory shown is not the one recorded)"
    return Violation(rule, seq, detail)


@in_one_pass
def _round_tables(audit: Audit) -> EntryCheck:
    memories = Memories()

    def check(entry: Entry) -> Iterator[Violation]:
        requested = entry.event
        memories.see(requested)
        if not isinstance(requested, ModelCallRequested):
            return
        parts = requested.request.address.split("/")
        if len(parts) != 5 or parts[0] != "p1" or parts[3] != "choice":
            return
        agent, rnd = parts[1], int(parts[2][1:])
        drawn = audit.phase1_tables.get((agent, rnd))
        words = audit.words(agent)
        located = memories.parts(agent, requested.request.input, words)
        if located is None:
            yield _unlocated("prompt_round_table", entry.seq, requested.request.address)
            return
        text = located.task  # the memory may quote earlier rounds and their tables
        match = words.round_of.search(text)
        if match is None or int(match.group(1)) != rnd or int(match.group(2)) != 4:
            yield Violation(
                "prompt_round_table",
                entry.seq,
                f"{agent}: the prompt of round {rnd} does not say 'round N of 4' with its number",
            )
        shown = _shown_table(text, words.round_table, words)
        if drawn is None or shown != drawn[1].distributions:
            yield Violation(
                "prompt_round_table",
                entry.seq,
                f"{agent} round {rnd}: the table shown is not the table drawn for the round",
            )
        if audit.config.original_values and 1 <= rnd <= 4:
            chances = _shown_chances(text, words)
            if chances != reference.situation(rnd)[2]:
                yield Violation(
                    "prompt_round_table",
                    entry.seq,
                    f"{agent} round {rnd}: the class chances shown are not situation "
                    f"{reference.situation(rnd)[0]}'s",
                )

    return check


@rule(
    "prompt_round_outcome",
    "§3 1.3",
    "each Phase-1 round's outcome as the agent was told it (distribution, class, income, "
    "payoff, balance and what each other distribution would have paid) is what was paid",
)
def prompt_round_outcome(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_round_outcomes)


@in_one_pass
def _round_outcomes(audit: Audit) -> EntryCheck:
    paid = {
        (p.agent, p.round): p for _, p in audit.history.each(PayoffAwarded) if p.scope == "phase1"
    }

    memories = Memories()

    def check(entry: Entry) -> Iterator[Violation]:
        requested = entry.event
        memories.see(requested)
        if not isinstance(requested, ModelCallRequested):
            return
        parts = requested.request.address.split("/")
        if len(parts) != 4 or parts[0] != "p1" or parts[3] != "memory" or parts[2][:1] != "r":
            return
        agent, rnd = parts[1], int(parts[2][1:])
        award = paid.get((agent, rnd))
        if award is None:
            return  # an unpaid round is told as such
        words = audit.words(agent)
        located = memories.parts(agent, requested.request.input, words)
        if located is None:
            yield _unlocated("prompt_round_outcome", entry.seq, requested.request.address)
            return
        # After the answer: the memory and the answer may restate earlier results.
        told_part = outcome_part(located.task, words)
        match = words.outcome.search(told_part)
        where = f"{agent} round {rnd}"
        if match is None:
            yield Violation("prompt_round_outcome", entry.seq, f"{where}: no outcome told")
            return
        told = (
            int(match.group(1)),
            int(match.group(2)),
            words.class_of(match.group(3)),
            words.dollars(match.group(4)),
            int(match.group(5)) * 100 + int(match.group(6)),
            int(match.group(7)) * 100 + int(match.group(8)),
        )
        truth = (
            rnd,
            award.distribution,
            award.income_class.value,
            award.income,
            award.payoff_cents,
            award.balance_cents,
        )
        if told != truth:
            yield Violation(
                "prompt_round_outcome", entry.seq, f"{where}: told {told}, paid {truth}"
            )
        drawn = audit.phase1_tables.get((agent, rnd))
        if drawn is None:
            return
        row = reference.CLASSES.index(award.income_class.value)
        for cf in words.counterfactual_row.finditer(told_part, match.end()):
            number, income = int(cf.group(1)), words.dollars(cf.group(2))
            payoff = int(cf.group(3)) * 100 + int(cf.group(4))
            table_income = drawn[1].distributions[number - 1][row]
            if (income, payoff) != (table_income, reference.payoff_cents(table_income)):
                yield Violation(
                    "prompt_round_outcome",
                    entry.seq,
                    f"{where}: told Dist. {number} would pay {income}, the table gives "
                    f"{table_income}",
                )

    return check


@rule(
    "prompt_memory_and_balance",
    "§5",
    "every participant prompt shows the agent's bank balance as its payoffs add up so far "
    "and its memory exactly as last recorded",
)
def prompt_memory_and_balance(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_memory_and_balance)


@in_one_pass
def _memory_and_balance(audit: Audit) -> EntryCheck:
    memory: dict[str, str] = {}
    balance: dict[str, int] = {}
    names = audit.names

    def check(entry: Entry) -> Iterator[Violation]:
        event = entry.event
        if isinstance(event, MemoryUpdated):
            memory[event.agent] = event.memory
        elif isinstance(event, PayoffAwarded):
            balance[event.agent] = balance.get(event.agent, 0) + event.payoff_cents
        elif isinstance(event, ModelCallRequested) and event.request.agent in names:
            agent, text = event.request.agent, event.request.input
            words = audit.words(agent)
            cents = balance.get(agent, 0)
            shown_balance = words.balance_line.format(dollars=cents // 100, cents=cents % 100)
            # The preamble's balance line, just before the memory section (a memory or an
            # answer may quote an old balance).
            if shown_balance + words.memory_head not in text:
                yield Violation(
                    "prompt_memory_and_balance",
                    entry.seq,
                    f"{event.request.address}: the prompt does not show the balance "
                    f"${cents / 100:.2f}",
                )
            recorded = memory.get(agent, "").strip() or words.empty_memory
            if split_prompt(text, words, recorded) is None:
                yield Violation(
                    "prompt_memory_and_balance",
                    entry.seq,
                    f"{event.request.address}: the prompt does not show the memory as recorded",
                )

    return check


def _explanation_problems(
    text: str, table: list[list[int]], probs: list[Fraction], words: PromptWords
) -> list[str]:
    problems = []
    shown = _shown_table(text, words.explanation_table, words)
    if shown != table:
        problems.append("the table shown is not the base set")
    averages = words.average_row.search(text)
    if averages is None:
        problems.append("no average row")
    else:
        cells = [words.dollars(c) for c in averages.group(1).split("|")]
        exact = [reference.mean(d, probs) for d in table]
        if len(cells) != len(exact) or any(
            abs(c - e) > 1 for c, e in zip(cells, exact, strict=False)
        ):
            problems.append(f"averages shown {cells}, the table's are {[float(e) for e in exact]}")
    for letter, number in words.chooses.findall(text):
        if reference.pick(letter, None, table, probs) != int(number):
            problems.append(f"({letter}) is said to choose Distribution {number}")
    intervals = words.interval.findall(text)
    if not intervals:
        problems.append("no (c)/(d) intervals")
    for letter, upto, low, high, above, number in intervals:
        if upto:
            amounts = [1, words.dollars(upto)]
        elif low:
            amounts = [words.dollars(low), words.dollars(high)]
        else:
            amounts = [words.dollars(above), words.dollars(above) * 10]
        for amount in amounts:
            if reference.pick(letter, amount, table, probs) != int(number):
                problems.append(
                    f"({letter}) at ${amount:,} is said to choose Distribution {number}"
                )
    return problems


@rule(
    "prompt_explanation",
    "§3 1.2",
    "the step-1.2 explanation shows the base set with its averages, and every pick it states "
    "(for (c) and (d) at both ends of each amount interval) is the rule's pick",
)
def prompt_explanation(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_explanations)


@in_one_pass
def _explanations(audit: Audit) -> EntryCheck:
    probs = audit.reference_probs
    memories = Memories()

    def check(entry: Entry) -> Iterator[Violation]:
        requested = entry.event
        memories.see(requested)
        if not isinstance(requested, ModelCallRequested):
            return
        parts = requested.request.address.split("/")
        if len(parts) != 5 or parts[0] != "p1" or parts[2] != "s1.2" or parts[3] != "ranking":
            return
        words = audit.words(parts[1])
        located = memories.parts(parts[1], requested.request.input, words)
        if located is None:
            yield _unlocated("prompt_explanation", entry.seq, requested.request.address)
            return
        for problem in _explanation_problems(located.task, audit.base, probs, words):
            yield Violation("prompt_explanation", entry.seq, f"{parts[1]}: {problem}")

    return check
