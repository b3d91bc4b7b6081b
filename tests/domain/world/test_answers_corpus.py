"""The world's messy-answer corpus (``answers.yaml``): realistic answers and what
``read_action`` and ``read_scores`` must make of each: the value meant, Undecided or
Invalid, never a wrong value (docs/world.md §4, §5)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from maai.domain.reading import ParseResult
from maai.domain.world.parsing import read_action, read_scores
from tests.support import corpus
from tests.support.world_views import player_view

CORPUS = corpus.load(__file__, "answers.yaml")
PLAYER = player_view(
    [
        {"name": "Hall"},
        {"name": "Town Square"},
        {"name": "Booth", "allowed": ["Ann", "Ben", "Mod"]},
    ]
)
VIEWS = {
    "player": PLAYER,
    "react": replace(PLAYER, react_asked=True),
    "planless": replace(PLAYER, has_plan=False),
    "moderator": replace(
        PLAYER, agent="Mod", location="Booth", present=(), role="moderator", endowment=None
    ),
}


def parse(case: dict[str, Any]) -> ParseResult[Any]:
    if case["reader"] == "scores":
        return read_scores(case["text"], case.get("count", 2))
    return read_action(case["text"], VIEWS[case["view"]])


def test_the_corpus_covers_both_readers_and_every_outcome() -> None:
    assert len(CORPUS) >= 30
    assert set(Counter(c["reader"] for c in CORPUS)) == {"action", "scores"}
    for reader in ("action", "scores"):
        outcomes = {corpus.outcome(c) for c in CORPUS if c["reader"] == reader}
        assert outcomes == {"parsed", "undecided", "invalid"}, reader


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: f"{c['reader']}:{c['note'][:50]}")
def test_each_answer_reads_as_expected(case: dict[str, Any]) -> None:
    corpus.assert_reads(parse(case), case, case["expect"])
