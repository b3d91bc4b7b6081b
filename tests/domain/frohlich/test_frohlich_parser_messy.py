"""The messy-answer corpus: long, formatted, self-correcting, quoting and multilingual answers.

Each entry expects the value its text supports or Undecided, never a wrong value
(docs/rules.md "Parsing messy answers").
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.support import corpus

CORPUS = corpus.load(__file__, "parser_corpus_messy.yaml")
PARSERS = corpus.FROHLICH_PARSERS


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
    corpus.check_frohlich(case)
