"""The collaboration parser corpus (``answers.yaml``): realistic answers and what
``parse_percent``, ``read_turn`` and ``read_decision`` must make of each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from maai.domain.collaboration.parsing import parse_percent, read_decision, read_turn
from maai.domain.reading import ParseResult
from tests.support import corpus

CORPUS = corpus.load(__file__, "answers.yaml")
SYMMETRIC = ["A", "B", "C", "Y"]
OPTIONS = {
    "symmetric": (SYMMETRIC, SYMMETRIC),
    "first": (["A", "B", "C", "Y"], ["K", "L", "M", "Y"]),
    "second": (["K", "L", "M", "Y"], ["A", "B", "C", "Y"]),
}
TURNS = {  # kind -> (message, prediction)
    "initial": (False, False),
    "initial_message": (True, False),
    "turn": (True, True),
    "update": (False, True),
}


def parse(case: dict[str, Any]) -> ParseResult[Any]:
    kind, text = case["kind"], case["text"]
    if kind == "percent":
        return parse_percent(text, case.get("what", "belief"))
    if kind == "decision":
        own, others = OPTIONS[case.get("options", "symmetric")]
        return read_decision(text, own, others)
    message, prediction = TURNS[kind]
    return read_turn(text, message=message, belief=True, prediction=prediction)


def case_id(case: dict[str, Any]) -> str:
    return f"{case['kind']}:{case['text'][:40]!r}"


def test_the_corpus_is_large_and_covers_every_reader() -> None:
    assert len(CORPUS) >= 60
    kinds = Counter(c["kind"] for c in CORPUS)
    assert set(kinds) == {"percent", "decision", *TURNS}, kinds
    for kind in ("percent", "decision", "turn", "initial_message", "initial"):
        outcomes = {corpus.outcome(c) for c in CORPUS if c["kind"] == kind}
        assert outcomes == {"parsed", "undecided", "invalid"}, (kind, outcomes)


def _seen(kind: str, expect: Any) -> Callable[[Any], Any]:
    """What of a parsed value the case names: the number, the option, or the keys given."""
    if kind == "percent":
        return lambda value: value
    if kind == "decision":
        return lambda value: value["option"]
    return lambda value: {key: value.get(key) for key in expect}


@pytest.mark.parametrize("case", CORPUS, ids=case_id)
def test_corpus(case: dict[str, Any]) -> None:
    corpus.assert_reads(parse(case), case, case["expect"], _seen(case["kind"], case["expect"]))


def test_no_reader_ever_returns_a_value_for_an_undecided_or_invalid_case() -> None:
    """The whole corpus at once, for the count: a wrong value is far worse than none."""
    assert corpus.never_a_wrong_value(CORPUS, parse, case_id) == []
