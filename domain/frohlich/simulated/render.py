"""Turning positions and rankings into the machine-readable fragments of an answer.

These fragments are the contract with the deterministic parsers: a letter in parentheses,
amounts in the language's money form (``$13,000``), a ranking as a numbered list 1-4, the
language's certainty line (``Certainty: <label>``) and a final line with its vote-proposal
phrase (``I PROPOSE A VOTE``). Their spellings, like the words around them, come from the
phrase bank.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.simulated.reading import Stance
from maai.domain.frohlich.types import Certainty, Principle


def money(ph: Phrases, amount: int) -> str:
    return ph.money.format(number=f"{amount:,}".replace(",", ph.thousands_separator))


def position(ph: Phrases, stance: Stance) -> str:
    """``(c) maximizing the average income with a floor constraint of $13,000``."""
    letter, short = stance.principle.value, ph.short[stance.principle]
    if stance.amount is None:
        return ph.position.format(letter=letter, short=short)
    return ph.position_amount.format(letter=letter, short=short, amount=money(ph, stance.amount))


def ballot(ph: Phrases, stance: Stance) -> str:
    """The compact form ``(c) with a floor of $13,000``; (a)/(b) keep their short title."""
    if stance.amount is None or stance.principle not in ph.constraint_nouns:
        return position(ph, stance)
    noun = ph.constraint_nouns[stance.principle]
    return ph.ballot_amount.format(
        letter=stance.principle.value, noun=noun, amount=money(ph, stance.amount)
    )


def brief(ph: Phrases, stance: Stance) -> str:
    """``(c) $13,000`` for memory notes."""
    if stance.amount is None:
        return f"({stance.principle.value})"
    return f"({stance.principle.value}) {money(ph, stance.amount)}"


def ranking_list(ph: Phrases, order: Sequence[Principle]) -> str:
    return "\n".join(f"{i}. ({p.value}) {ph.titles[p]}" for i, p in enumerate(order, 1))


def certainty_line(ph: Phrases, certainty: Certainty) -> str:
    return ph.certainty_line.format(certainty=ph.certainty[certainty])


def join_names(ph: Phrases, names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ph.list_and.format(head=", ".join(names[:-1]), last=names[-1])


def pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def paragraph(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())
