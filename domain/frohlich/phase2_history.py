"""The public history a Phase-2 prompt shows (docs/frohlich.md §4 and "History window"): the
items shown word for word, their text and the facts a discussion request carries."""

from __future__ import annotations

from functools import cache, partial
from typing import Any

from maai.canonical import FrozenJson, FrozenJsonList
from maai.domain.frohlich import render
from maai.domain.frohlich.prompts import word
from maai.domain.frohlich.state import PublicItem, State
from maai.domain.frohlich.steps import (
    config_of,
)
from maai.domain.memo import GrowingMemo


def shown_public(state: State, round_: int) -> tuple[tuple[PublicItem, ...], int]:
    """The public items a Phase-2 prompt of round ``round_`` shows word for word, and how
    many earlier rounds it leaves out: everything by default; with ``history.window_rounds``
    K, the current round so far and the K rounds before it (docs/frohlich.md, "History
    window")."""
    window = config_of(state).history.window_rounds
    if window is None:
        return state.public, 0
    first = round_ - window
    kept = tuple(item for item in state.public if item.round >= first)
    omitted = len({item.round for item in state.public if item.round < first})
    return kept, omitted


def shown_history_text(state: State, round_: int, language: str) -> str:
    """The text of the public history a Phase-2 prompt of round ``round_`` shows."""
    kept, omitted = shown_public(state, round_)
    if not omitted:
        return render.public_history_text(kept, language)
    line = word(language, "history_omitted", omitted=omitted)
    return line if not kept else f"{line}\n{render.history_text(kept, language)}"


def _history_item(item: PublicItem, language: str) -> list[FrozenJson]:
    text = item.text if item.kind == "statement" else "\n".join(render.item_lines(item, language))
    return [FrozenJson(kind=item.kind, speaker=item.speaker, text=text, round=item.round)]


@cache
def _history_context(language: str) -> GrowingMemo[PublicItem, FrozenJson]:
    """Made once per item and language and shared by every request that carries it:
    unchangeable, so that its JSON text is made once too (request hashes,
    maai.canonical.FrozenJson). One memo per language: a reader's history is never another
    language's."""
    return GrowingMemo(
        partial(_history_item, language=language),
        extend=FrozenJsonList.extended,  # type: ignore[arg-type]
    )


HISTORY_MARK = "\ue000maai:public-history\ue000"
"""Stands for the public history's text while a request's own text is rendered (private-use
characters): the history, the longest part of a late prompt, is then copied into the input
once, at a place known without looking for it."""


def discussion_context(state: State, round_: int, name: str, **extra: str) -> dict[str, Any]:
    """The facts a Phase-2 request to ``name`` carries. Built only with a request (callers
    pass it as a function): the walk passes by a waiting request at every decision of the
    turn."""
    config = config_of(state)
    return {
        "step": "2.1",
        "round": round_,
        "rounds": config.phase2_rounds,
        "history": _history_context(config.language_of(name))(shown_public(state, round_)[0]),
        **extra,
    }
