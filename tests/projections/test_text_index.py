"""The leak audit's multi-text search (projections/leaks.py ``TextIndex``: an automaton over
each text's beginning, the rest compared where a beginning is found) finds exactly the texts
a plain ``text in prompt`` finds, overlapping and repeated ones included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maai.projections.leaks import TextIndex

# A small alphabet: texts share beginnings, overlap and repeat inside the prompts.
texts = st.lists(st.text(alphabet="ab c\n", min_size=0, max_size=12), max_size=12)
pieces = st.lists(st.text(alphabet="ab c\n", max_size=8), max_size=10)


@pytest.mark.parametrize("prefix_chars", [1, 3, 64])
@settings(max_examples=300, deadline=None)
@given(items=texts, filler=pieces)
def test_the_index_finds_what_a_plain_search_finds(
    prefix_chars: int, items: list[str], filler: list[str]
) -> None:
    # The prompt: the texts themselves (some cut short) between random pieces.
    parts = [p for pair in zip(filler, items + items[::-1], strict=False) for p in pair]
    prompt = "".join(part[: len(part) - (i % 3 == 0)] for i, part in enumerate(parts))
    original = TextIndex.PREFIX_CHARS
    TextIndex.PREFIX_CHARS = prefix_chars
    try:
        index = TextIndex(items)
    finally:
        TextIndex.PREFIX_CHARS = original
    assert index.found_in(prompt) == {t for t in items if t and t in prompt}


def test_long_texts_with_one_beginning_are_told_apart() -> None:
    shared = "x" * 100
    index = TextIndex([shared + "one", shared + "two", shared])
    assert index.found_in(f"...{shared}two...") == {shared + "two", shared}
    assert index.found_in(shared[:-1]) == set()
