"""The parser corpus: realistic responses and the result each parser must give."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import corpus

CORPUS = corpus.load(__file__, "parser_corpus.yaml")
PARSERS = corpus.FROHLICH_PARSERS


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
    corpus.check_frohlich(case)
