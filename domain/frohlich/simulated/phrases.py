"""The form of every sentence the simulated participant can say, one instance per language.

Templates use ``str.format`` fields. The machine-readable parts (principle letters in
parentheses, amounts, the numbered ranking, the certainty line, the vote-proposal line) are
produced by ``render.py`` from the forms given here (``money``, ``certainty_line``,
``proposal_line``), in the spelling each language's parsers read: ``$13,000`` /
``$13.000`` / ``13,000美元``, ``Certainty:`` / ``Certeza:`` / ``确定程度：``, ``I PROPOSE A
VOTE`` / ``PROPONGO UNA VOTACIÓN`` / ``我提议投票``. English, Spanish and Mandarin are
instances of ``Phrases`` in ``phrases_en.py``, ``phrases_es.py`` and ``phrases_zh.py``, listed in
``languages.PHRASES``; a language is one more ``Phrases`` instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from maai.domain.frohlich.types import Certainty, Principle


@dataclass(frozen=True)
class Phrases:
    titles: Mapping[Principle, str]  # "Maximizing the floor income" (sentence case)
    short: Mapping[Principle, str]  # "maximizing the floor" (inside a sentence)
    nicknames: Mapping[Principle, str]  # "floor constraint", for answers that omit the letter
    constraint_nouns: Mapping[Principle, str]  # "floor" / "range", for "(c) with a floor of $X"
    certainty: Mapping[Certainty, str]
    ranking_intro: tuple[str, ...]
    ranking_outro: tuple[str, ...]
    ranking_unreadable: tuple[str, ...]
    reasons: Mapping[Principle, tuple[str, ...]]
    doubts: Mapping[Principle, tuple[str, ...]]
    retry: tuple[str, ...]
    choice: tuple[str, ...]
    choice_missing_amount: tuple[str, ...]
    choice_unreadable: tuple[str, ...]
    stance_keep: tuple[str, ...]
    stance_switch: tuple[str, ...]
    reply_agree: tuple[str, ...]
    reply_disagree: tuple[str, ...]
    reply_tally: tuple[str, ...]
    close_near: tuple[str, ...]
    close_far: tuple[str, ...]
    proposal_line: str
    reasoning_open: tuple[str, ...]
    reasoning_camp: str
    reasoning_none: tuple[str, ...]
    reasoning_keep: tuple[str, ...]
    reasoning_switch: tuple[str, ...]
    reasoning_near: tuple[str, ...]
    reasoning_far: tuple[str, ...]
    poll_yes: tuple[str, ...]
    poll_no: tuple[str, ...]
    poll_unclear: tuple[str, ...]
    ballot: tuple[str, ...]
    ballot_missing_amount: tuple[str, ...]
    memory_ranking: str
    memory_choice: str
    memory_round: str
    memory_step: str
    memory_round_label: str
    memory_ramble: tuple[str, ...]
    memory_unknown: str
    memory_heard: str
    memory_keywords: tuple[str, ...]  # what makes an outcome sentence worth remembering
    list_and: str
    money: str  # "${number}"
    thousands_separator: str
    certainty_line: str  # "Certainty: {certainty}"
    position: str  # "({letter}) {short}"
    position_amount: str  # "({letter}) {short} of {amount}"
    ballot_amount: str  # "({letter}) with a {noun} of {amount}"
