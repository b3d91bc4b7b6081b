"""The building blocks of a report's sections (docs/projections.md, "Reports"): each function
renders a macro of the shared template ``projections/templates/_blocks.html.j2`` (Jinja2,
autoescaped; ``projections/templating.py``), so no HTML is written here.

A text parameter is escaped; a parameter named ``body`` (or a cell, a summary or words given
as :class:`Markup`) is markup already built by these functions or by ``projections/charts.py``.
A table cell or a fact's value goes through the templates' ``cell`` filter
(``projections/templating.py``): ``None`` as nothing, a boolean as yes/no, a mapping or list
as JSON, never as Python writes it.
Model answers are quoted in a report, so nothing a participant wrote can become markup: a
statement holding ``<script>`` shows as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from maai.projections.templating import blocks


class Markup(str):
    """Text that is already HTML (built here or by the plots), put in a page as it is; the
    templates (autoescaped) take it as it is through ``__html__``."""

    def __html__(self) -> str:
        return str(self)


Cell = str | int | float | None | Markup


def _built(rendered: Any) -> Markup:
    return Markup(str(rendered))


def paragraph(words: str, css_class: str | None = None) -> Markup:
    return _built(blocks().paragraph(words, css_class))


def heading(level: int, words: str) -> Markup:
    return _built(blocks().heading(level, words))


def facts(pairs: Iterable[tuple[str, Cell]]) -> Markup:
    """Label/value pairs as a definition list."""
    return _built(blocks().facts(list(pairs)))


def table(columns: Sequence[str], rows: Iterable[Sequence[Cell]]) -> Markup:
    return _built(blocks().table(list(columns), list(rows)))


def details(summary: str, body: str, *, open_: bool = False) -> Markup:
    """A collapsible block (closed unless ``open_``); ``summary`` is text, or :class:`Markup`
    (e.g. with a flagged part)."""
    return _built(blocks().details(summary, _markup(body), open_))


def quote(speaker: str, words: str, note: str = "") -> Markup:
    """One utterance: who said it, what they said (line breaks kept), and a note."""
    return _built(blocks().quote(speaker, words, note))


def preformatted(words: str) -> Markup:
    return _built(blocks().preformatted(words))


def flag(words: str) -> Markup:
    """Words a reader must not miss (a wrong announcement, a missing answer), in red."""
    return _built(blocks().flag(words))


def code(words: str) -> Markup:
    """A command or a name as the reader types it."""
    return _built(blocks().code(words))


def strong(words: str) -> Markup:
    return _built(blocks().strong(words))


def inline(parts: Iterable[str], separator: str = "") -> Markup:
    """Texts and markup on one line, with ``separator`` between them (texts escaped)."""
    return _built(blocks().inline(list(parts), separator))


def join(parts: Iterable[str]) -> Markup:
    """Blocks one after the other; each part must be markup (text would go in unescaped)."""
    return Markup("".join(_markup(part) for part in parts))


def figures(*plots: str) -> Markup:
    """Plots side by side where the page is wide enough."""
    return _built(blocks().figures([_markup(plot) for plot in plots]))


def _markup(part: str) -> Markup:
    if isinstance(part, Markup):
        return part
    if hasattr(part, "__html__"):
        return Markup(part.__html__())
    raise TypeError(f"a block's body must be markup, not {type(part).__name__}: {part[:60]!r}")
