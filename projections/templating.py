"""The one folder of page templates and the one stylesheet of maai's HTML (docs/projections.md,
"Reports"; docs/view.md).

``maai report``, ``maai study report`` and the pages of ``maai view`` render through the
Jinja2 templates of ``projections/templates/`` with autoescaping on: the static report is a
one-file snapshot of the same views (the stylesheet ``maai.css`` inlined, no script), and the
viewer serves the same stylesheet. The building blocks a report's sections are made of
(a list of facts, a table, a quoted answer, ...) are the macros of ``_blocks.html.j2``,
called through ``projections/markup.py``.

Nothing but text, a number or markup reaches a page: ``None`` is written as nothing, and
any other value (a dict, a list, a function, an object) is an error, not its Python form.
"""

from __future__ import annotations

import html
import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

TEMPLATES = Path(__file__).resolve().parent / "templates"
"""The templates and ``maai.css``; shipped in the wheel as package data of
``maai.projections.templates``."""
STYLESHEET = "maai.css"


@cache
def stylesheet() -> str:
    """The stylesheet every page uses: inlined in a report, served by the viewer."""
    return (TEMPLATES / STYLESHEET).read_text(encoding="utf-8")


def finalize(value: Any) -> Any:
    """What ``{{ value }}`` may write: markup as it is, text escaped (by :func:`html.escape`,
    quotes too, one escaping for every page), a number, or nothing for ``None``; anything else
    would reach the page as Python writes it."""
    if hasattr(value, "__html__"):
        return value
    if value is None:
        return ""
    if isinstance(value, str):
        return markupsafe.Markup(html.escape(value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    raise TypeError(f"{type(value).__name__} would reach the page unformatted: {value!r}")


def cell(value: Any) -> Any:
    """The ``cell`` filter: a value as a reader reads it (``None`` as nothing, a boolean as
    yes/no, a mapping or list as JSON, never as Python writes it); markup as it is."""
    if hasattr(value, "__html__"):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if isinstance(value, str | int | float):
        return value
    return str(value)


def environment(printable: tuple[type, ...] = ()) -> jinja2.Environment:
    """A new environment over the templates: autoescaping on for every file, an undefined
    name an error, :func:`finalize` guarding every ``{{ }}`` (values of the ``printable``
    types are written as their text, escaped: the viewer's URLs). The viewer adds its own
    filters and globals to one of its own; reports use :func:`shared`."""

    def guard(value: Any) -> Any:
        if printable and isinstance(value, printable):
            return finalize(str(value))
        return finalize(value)

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        finalize=guard,
    )
    env.filters["cell"] = cell
    return env


@cache
def shared() -> jinja2.Environment:
    """The reports' environment (one per process; templates are read once)."""
    return environment()


def blocks() -> Any:
    """The macros of ``_blocks.html.j2`` (facts, table, details, quote, ...)."""
    return _blocks_module()


@cache
def _blocks_module() -> Any:
    return shared().get_template("_blocks.html.j2").module
