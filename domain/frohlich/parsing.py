"""Deterministic parsers for what participants write (docs/frohlich.md §5 "Parsing").

Each parser returns ``Parsed(value)``, ``Undecided(reason)`` (this code cannot tell; the caller
may ask the utility agent) or ``Invalid(reason)`` (decided: the answer is not acceptable; the
reason is addressed to the participant). The parsers prefer Undecided to a guess: a wrong
parse silently corrupts the data, an Undecided costs one utility-agent call.
Decisions the rules leave open are listed in docs/rules.md.

English, Spanish and Mandarin are read by the same parsers, whatever the run's language (a
participant may answer in another language): decision phrases ("I choose", "elijo", "我选"),
negations ("no elijo", "我不选"), corrections ("en realidad", "其实", "我改选"), other people's
positions ("Ana prefiere", "张三选了"), yes and no ("sí", "todavía no", "同意", "不同意") and the
vote-proposal line of each language (``VOTE_PROPOSAL_PHRASES``).
"""

from __future__ import annotations

from maai.domain.frohlich.parsing_choice import parse_ballot, parse_choice
from maai.domain.frohlich.parsing_ranking import parse_ranking
from maai.domain.frohlich.parsing_text import Invalid, Parsed, ParseResult, Undecided
from maai.domain.frohlich.parsing_vote import (
    VOTE_PROPOSAL_PHRASE,
    VOTE_PROPOSAL_PHRASES,
    parse_poll_answer,
    parse_vote_proposal,
)
from maai.domain.frohlich.words import count_words, truncate_words

__all__ = [
    "VOTE_PROPOSAL_PHRASE",
    "VOTE_PROPOSAL_PHRASES",
    "Invalid",
    "ParseResult",
    "Parsed",
    "Undecided",
    "count_words",
    "parse_ballot",
    "parse_choice",
    "parse_poll_answer",
    "parse_ranking",
    "parse_vote_proposal",
    "truncate_words",
]
