"""HTML building blocks for the reports (docs/projections.md, "Reports").

Every function takes plain text and escapes it with :func:`html.escape`; a parameter named
``body`` (or ``cells`` given as :class:`Markup`) is markup already built by these functions
or by ``projections/charts.py``. Model answers are quoted in a report, so nothing a
participant wrote can become markup: a statement holding ``<script>`` shows as text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape


class Markup(str):
    """Text that is already HTML (built here or by the plots), put in a page as it is; the
    page template (``page.html.j2``, autoescaped) takes it as it is through ``__html__``."""

    def __html__(self) -> str:
        return str(self)


Cell = str | int | float | None | Markup


def text(value: Cell) -> str:
    """A value as escaped text (``None`` as an empty string, a boolean as yes/no, a mapping or
    list as JSON, never as Python writes it); :class:`Markup` as it is."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list | tuple):
        return escape(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str))
    return escape(str(value))


def paragraph(words: str, css_class: str | None = None) -> Markup:
    attribute = f' class="{escape(css_class)}"' if css_class else ""
    return Markup(f"<p{attribute}>{escape(words)}</p>")


def heading(level: int, words: str) -> Markup:
    return Markup(f"<h{level}>{escape(words)}</h{level}>")


def facts(pairs: Iterable[tuple[str, Cell]]) -> Markup:
    """Label/value pairs as a definition list."""
    items = "".join(f"<dt>{escape(label)}</dt><dd>{text(value)}</dd>" for label, value in pairs)
    return Markup(f'<dl class="facts">{items}</dl>')


def table(columns: Sequence[str], rows: Iterable[Sequence[Cell]]) -> Markup:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{text(c)}</td>" for c in row) + "</tr>" for row in rows)
    return Markup(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def details(summary: str, body: str, *, open_: bool = False) -> Markup:
    """A collapsible block (closed unless ``open_``); ``summary`` is text, or :class:`Markup`
    (e.g. with a flagged part)."""
    state = " open" if open_ else ""
    return Markup(f"<details{state}><summary>{text(summary)}</summary>{body}</details>")


def quote(speaker: str, words: str, note: str = "") -> Markup:
    """One utterance: who said it, what they said (line breaks kept), and a note."""
    extra = f' <span class="note">{escape(note)}</span>' if note else ""
    return Markup(
        f'<div class="utterance"><span class="speaker">{escape(speaker)}</span>{extra}'
        f"<blockquote>{escape(words)}</blockquote></div>"
    )


def preformatted(words: str) -> Markup:
    return Markup(f"<pre>{escape(words)}</pre>")


def flag(words: str) -> Markup:
    """Words a reader must not miss (a wrong announcement, a missing answer), in red."""
    return Markup(f'<span class="flag">{escape(words)}</span>')


def join(parts: Iterable[str]) -> Markup:
    return Markup("".join(parts))


def figures(*plots: str) -> Markup:
    """Plots side by side where the page is wide enough."""
    return Markup('<div class="figures">' + "".join(plots) + "</div>")
