"""Every parser of every experiment is total and linear (docs/rules.md "Reading bounds"):
whatever a model answers (random text, huge numbers, deep JSON, long runs of whitespace,
any unicode) it returns a reading, Undecided or Invalid, never raises, and takes at most
50 ms plus a few ms per KB.

Time is the process's CPU time, not the wall clock, and the bound is generous (``SLACK``):
the suite runs on machines shared with other work, and a quadratic parser overshoots any
constant factor on the long inputs drawn here (the stall of issue 29 took 5 s at 4,000
spaces)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maai.domain.collaboration.parsing import parse_option, parse_percent, read_decision, read_turn
from maai.domain.extraction import Extraction, ExtractionFailure, parse_extraction
from maai.domain.frohlich.amounts import parse_amount
from maai.domain.frohlich.extraction import ChoiceExtraction, RankingExtraction
from maai.domain.frohlich.parsing import (
    parse_ballot,
    parse_choice,
    parse_poll_answer,
    parse_ranking,
    parse_vote_proposal,
)
from maai.domain.reading import Invalid, Parsed, Undecided
from maai.domain.world.parsing import read_action, read_scores
from tests.support.world_views import player_view

VIEW = player_view([{"name": "Hall"}, {"name": "Town Square"}, {"name": "Booth"}], react_asked=True)
OWN, OTHERS = ["A", "B", "C", "Y"], ["K", "L", "M", "Y"]

READING = (Parsed, Undecided, Invalid)
PARSERS: dict[str, tuple[Callable[[str], Any], tuple[type, ...]]] = {
    "frohlich ranking": (parse_ranking, READING),
    "frohlich choice": (parse_choice, READING),
    "frohlich ballot": (parse_ballot, READING),
    "frohlich poll": (parse_poll_answer, READING),
    "frohlich proposal": (parse_vote_proposal, (bool,)),
    "frohlich amount": (parse_amount, (int, type(None))),
    "collaboration belief": (lambda t: parse_percent(t, "belief"), READING),
    "collaboration prediction": (lambda t: parse_percent(t, "prediction"), READING),
    "collaboration option": (lambda t: parse_option(t, OWN, OTHERS), READING),
    "collaboration turn": (
        lambda t: read_turn(t, message=True, belief=True, prediction=True),
        READING,
    ),
    "collaboration update": (
        lambda t: read_turn(t, message=False, belief=True, prediction=True),
        READING,
    ),
    "collaboration decision": (lambda t: read_decision(t, OWN, OTHERS), READING),
    "world action": (lambda t: read_action(t, VIEW), READING),
    "world scores": (lambda t: read_scores(t, 2), READING),
    "utility reply (ranking)": (
        lambda t: parse_extraction(t, RankingExtraction),
        (Extraction, ExtractionFailure),
    ),
    "utility reply (choice)": (
        lambda t: parse_extraction(t, ChoiceExtraction),
        (Extraction, ExtractionFailure),
    ),
}

SLACK = 4.0  # a loaded CI machine; a quadratic parser is off by far more on these inputs


def budget(text: str) -> float:
    """Seconds a parser may take on ``text``: 50 ms plus 5 ms per KB (UTF-8), times SLACK."""
    return SLACK * (0.050 + 0.005 * len(text.encode("utf-8", "surrogatepass")) / 1024)


def check_every_parser(text: str) -> None:
    for name, (parser, kinds) in PARSERS.items():
        started = time.process_time()
        result = parser(text)  # an exception fails the test with its input
        spent = time.process_time() - started
        assert isinstance(result, kinds), (name, result)
        assert spent <= budget(text), f"{name}: {spent * 1000:.0f} ms on {len(text):,} chars"


# Pieces that reach deep into the parsers: labels, principle names, numbers, JSON, lists.
FRAGMENTS = [
    "BELIEF:", "PREDICTION:", "MESSAGE:", "REASONING:", "CHOICE:", "Decision:", "Reply:",
    "**Belief**:", "I choose", "My vote:", "elijo", "我选择", "我提议投票", "I PROPOSE A VOTE",
    "(a)", "(b)", "(c)", "(d)", "（c）", "maximizing the floor income",
    "maximizing the average with a floor constraint", "range constraint", "Option B", "A",
    "Y", "70", "70%", "seventy", "up by 10", "$12,000", "12.000 dólares", "一万二千", "1e400",
    "-5", "0.7", "1. ", "2. ", "3. ", "4. ", "| Rank | Principle |", "|---|---|", "| 1 |",
    ">", "then", "best to worst", "worst to best", "the reverse", "actually", "should be",
    "not", "but", "sure", "very unsure", "Certainty:", "yes", "no", "sí", "同意", '"', "'",
    "“", "”", "> ", "```json", "```", "{", "}", "[", "]", ":", ",", '"action"', '"move"',
    '"to"', '"Hall"', '"the hall"', '"destination"', '"react"', '"Continue"', '"amount"',
    '"7"', '"plans"', '"scores"', "[7, 3]", "[1, 10]", "?", "!", ".", "\n", "\n\n", " ",
    "\t", "\u00a0", "\u3000", "\u200b", "é", "ñ", "中", "🙂", "\ud800",
]  # fmt: skip
composed = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join)
huge_number = st.integers(300, 6000).map(lambda n: "9" * n)
in_templates = st.sampled_from(
    [
        "BELIEF: {}\nPREDICTION: {}",
        '{{"action": "contribute", "amount": {}}}',
        "[{}, {}]",
        "I choose (c) with a floor of ${}.",
        '{{"order": ["c"], "certainty": "sure", "readable": {}}}',
        "CHOICE: {}",
        "{}",
    ]
)
huge_numbers = st.builds(lambda t, n: t.format(n, n), in_templates, huge_number)
CLOSING = {"[": "]", '{"a":': "}"}
deep_json = st.builds(
    lambda depth, opening, inner: opening * depth + inner + CLOSING[opening] * depth,
    st.integers(50, 40_000),
    st.sampled_from(["[", '{"a":']),
    st.sampled_from(["1", '"x"', "", "[]"]),
)
whitespace_runs = st.builds(
    lambda run, n, before, after: before + run * n + after,
    st.sampled_from([" ", "\t", "\n", "\r\n", "\u00a0", "\u3000", " \n", "\t \n"]),
    st.integers(1_000, 100_000),
    st.sampled_from(["", "MESSAGE: hi", "I choose (c)", "{", "BELIEF:"]),
    st.sampled_from(["", "MESSAGE: hi\nBELIEF: 70", "(c) $12,000", '{"action": "wait"}', "70"]),
)
unicode_text = st.text(max_size=3_000)
ANSWERS = st.one_of(composed, huge_numbers, deep_json, whitespace_runs, unicode_text)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(ANSWERS)
def test_every_parser_reads_any_answer_without_raising_in_linear_time(text: str) -> None:
    check_every_parser(text)


# The inputs of issue 29, each of which crashed or stalled a parser.
@pytest.mark.parametrize(
    "text",
    [
        " " * 100_000,
        " " * 100_000 + "MESSAGE: hi\nBELIEF: 70\nPREDICTION: 60",
        "BELIEF: " + "9" * 400,
        '{"action": "contribute", "amount": ' + "9" * 5_000 + "}",
        "[" + "9" * 5_000 + ", 1]",
        '{"order": null, "certainty": null, "readable": ' + "9" * 5_000 + "}",
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 50_000 + "1" + "}" * 50_000,
        "```" * 20_000,
        "(a) (b) (c) (d) " * 2_000,
        "I PROPOSE A VOTE\n" * 5_000,
        "x" * 200_000,
    ],
    ids=lambda text: f"{text[:12]!r}x{len(text)}",
)
def test_the_inputs_that_crashed_or_stalled_a_parser(text: str) -> None:
    check_every_parser(text)
