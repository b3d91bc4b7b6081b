"""What every parser corpus test does with a case: load the corpus (a YAML list beside the
test), then check what a reader made of a case's text against the case's ``expect``: the
value meant (``Parsed``), ``undecided`` or ``invalid`` (with the ``reason`` the case names,
if any). One runner for the Frohlich, world and collaboration corpora: a wrong value is far
worse than none, and every corpus asserts it the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from maai.domain.frohlich import parsing
from maai.domain.frohlich.amounts import parse_amount
from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided
from tests.domain.frohlich.notation import choice_of, ranking_of

Case = dict[str, Any]
NOT_PARSED = ("undecided", "invalid")


def load(beside: str, name: str) -> list[Case]:
    """The corpus ``name`` in the folder of the test file ``beside`` (its ``__file__``)."""
    return list(yaml.safe_load((Path(beside).parent / name).read_text(encoding="utf-8")))


def outcome(case: Case) -> str:
    """``parsed``, ``undecided`` or ``invalid``: what the case expects of its reader."""
    expect = case["expect"]
    return expect if isinstance(expect, str) and expect in NOT_PARSED else "parsed"


def assert_reads(
    result: ParseResult[Any],
    case: Case,
    expected: Any = None,
    seen: Callable[[Any], Any] = lambda value: value,
) -> None:
    """``result`` is what ``case`` expects: ``Parsed`` with ``seen(value) == expected``, or
    ``Undecided`` / ``Invalid`` with a reason that holds the case's ``reason`` (any case)."""
    expect = outcome(case)
    if expect == "undecided":
        assert isinstance(result, Undecided), result
    elif expect == "invalid":
        assert isinstance(result, Invalid), result
    else:
        assert isinstance(result, Parsed), result
        assert seen(result.value) == expected
        return
    assert result.reason
    reason = case.get("reason")
    if reason is not None:
        assert str(reason).lower() in result.reason.lower(), result.reason


def never_a_wrong_value(
    corpus: list[Case], read: Callable[[Case], ParseResult[Any]], name: Callable[[Case], str]
) -> list[str]:
    """The cases that expect no value but are read as one (the whole corpus at once)."""
    return [name(c) for c in corpus if outcome(c) != "parsed" and isinstance(read(c), Parsed)]


FROHLICH_PARSERS: dict[str, Callable[[str], ParseResult[Any]]] = {
    "ranking": parsing.parse_ranking,
    "choice": parsing.parse_choice,
    "ballot": parsing.parse_ballot,
    "poll": parsing.parse_poll_answer,
}


def check_frohlich(case: Case) -> None:
    """A case of the Frohlich corpora (``parser_corpus*.yaml``): its ``parser`` reads its
    ``text``; values in the short notation of ``tests/domain/frohlich/notation.py``."""
    parser, text = case["parser"], case["text"]
    if parser == "proposal":
        assert parsing.parse_vote_proposal(text) is case["value"]
        return
    if parser == "amount":
        assert parse_amount(text) == case["value"]
        return
    expected = None
    if outcome(case) == "parsed":
        value = case["value"]
        if parser == "ranking":
            expected = ranking_of(value)
        elif parser in ("choice", "ballot"):
            expected = choice_of(value)
        else:
            expected = value
    assert_reads(FROHLICH_PARSERS[parser](text), case, expected)
