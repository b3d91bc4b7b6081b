"""Prompt templates, one file per text, per language (``en/`` now; ``es/`` and ``zh/`` fit
beside it). Templates use ``string.Template`` placeholders (``$name``); a missing value is an
error, never a silent blank.

Reading the bundled template files is the only I/O here: they are part of the code, loaded
once and cached, so rendering stays a pure function of state and config.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def template(name: str, language: str = "en") -> Template:
    path = resources.files(__package__).joinpath(language, f"{name}.txt")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyError(f"no prompt template {language}/{name}.txt") from None
    return Template(text.rstrip("\n"))


def render(template_name: str, language: str = "en", /, **values: object) -> str:
    return template(template_name, language).substitute({k: str(v) for k, v in values.items()})
