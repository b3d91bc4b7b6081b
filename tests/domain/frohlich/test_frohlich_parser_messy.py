"""The messy-answer corpus: long, formatted, self-correcting, quoting and multilingual answers.

Each entry expects the value its text supports or Undecided, never a wrong value
(docs/rules.md "Parsing messy answers").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from maai.domain.frohlich.amounts import parse_amount
from maai.domain.frohlich.parsing import (
    Invalid,
    Parsed,
    Undecided,
    parse_ballot,
    parse_choice,
    parse_poll_answer,
    parse_ranking,
    parse_vote_proposal,
)
from tests.domain.frohlich.notation import choice_of, ranking_of

CORPUS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "parser_corpus_messy.yaml").read_text(encoding="utf-8")
)
PARSERS = {
    "ranking": parse_ranking,
    "choice": parse_choice,
    "ballot": parse_ballot,
    "poll": parse_poll_answer,
}


def _expected_value(parser: str, value: Any) -> Any:
    if parser == "ranking":
        return ranking_of(value)
    if parser in ("choice", "ballot"):
        return choice_of(value)
    return value


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['parser']}:{case['lang']}:{case['text'][:40]!r}"


def test_the_messy_corpus_is_large_and_covers_parsers_and_languages() -> None:
    assert len(CORPUS) >= 80
    parsers = Counter(c["parser"] for c in CORPUS)
    assert all(parsers[p] >= 5 for p in [*PARSERS, "proposal", "amount"]), parsers
    languages = Counter(c["lang"] for c in CORPUS)
    assert set(languages) == {"en", "es", "zh"} and min(languages.values()) >= 10, languages
    for parser in PARSERS:
        kinds = {c["expect"] for c in CORPUS if c["parser"] == parser}
        assert {"parsed", "undecided"} <= kinds, parser
    texts = [(c["parser"], c["text"]) for c in CORPUS]
    assert len(texts) == len(set(texts)), "duplicate entries"


@pytest.mark.parametrize("case", CORPUS, ids=_case_id)
def test_messy_corpus(case: dict[str, Any]) -> None:
    parser, text = case["parser"], case["text"]
    if parser == "proposal":
        assert parse_vote_proposal(text) is case["value"]
        return
    if parser == "amount":
        assert parse_amount(text) == case["value"]
        return
    result = PARSERS[parser](text)
    expect = case["expect"]
    if expect == "parsed":
        assert result == Parsed(_expected_value(parser, case["value"]))
    elif expect == "undecided":
        assert isinstance(result, Undecided), result
        assert result.reason
    else:
        assert isinstance(result, Invalid), result
        assert case["reason"].lower() in result.reason.lower()
