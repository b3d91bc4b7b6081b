"""The parser corpus: realistic responses and the result each parser must give."""

from __future__ import annotations

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
    (Path(__file__).parent / "parser_corpus.yaml").read_text(encoding="utf-8")
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
    return f"{case['parser']}:{case['text'][:40]!r}"


def test_corpus_is_large_and_covers_every_parser() -> None:
    assert len(CORPUS) >= 80
    counts = {p: sum(1 for c in CORPUS if c["parser"] == p) for p in [*PARSERS, "proposal"]}
    assert all(n >= 5 for n in counts.values()), counts
    for parser in ("ranking", "choice", "ballot", "poll"):
        kinds = {c["expect"] for c in CORPUS if c["parser"] == parser}
        assert "parsed" in kinds and "undecided" in kinds, parser
    for parser in ("ranking", "choice", "ballot"):
        assert any(c["expect"] == "invalid" for c in CORPUS if c["parser"] == parser), parser


@pytest.mark.parametrize("case", CORPUS, ids=_case_id)
def test_corpus(case: dict[str, Any]) -> None:
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
