"""Prompt templates: one file per text, per language, in an experiment's ``prompts/``
package (``prompts/en/statement.txt``). Templates use ``string.Template`` placeholders
(``$name``); a missing value is an error, never a silent blank, and so is a missing template:
there is no fallback to another language.

Reading the bundled template files is the only I/O here: they are part of the code, loaded
once and cached, so rendering stays a pure function of state and config.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template


class MissingTemplateError(KeyError):
    """No template of that name in that language."""

    def __str__(self) -> str:
        return str(self.args[0])


class PromptSet:
    """The templates of one package, by language and name."""

    def __init__(self, package: str) -> None:
        self.package = package
        self._template = lru_cache(maxsize=None)(self._load)
        self._fixed_texts: dict[tuple[str, str], str] = {}

    def _load(self, name: str, language: str) -> Template:
        path = resources.files(self.package).joinpath(language, f"{name}.txt")
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise MissingTemplateError(
                f"no prompt template {language}/{name}.txt in {self.package}"
            ) from None
        return Template(text.rstrip("\n"))

    def template(self, name: str, language: str = "en") -> Template:
        return self._template(name, language)

    def render(self, name: str, language: str = "en", /, **values: object) -> str:
        if not values:
            return self._fixed(name, language)
        return self.template(name, language).substitute({k: str(v) for k, v in values.items()})

    def _fixed(self, name: str, language: str) -> str:
        """A template that takes no values, filled in once (the protocol renders the same
        principles and explanations into every prompt)."""
        text = self._fixed_texts.get((name, language))
        if text is None:
            text = self.template(name, language).substitute({})
            self._fixed_texts[(name, language)] = text
        return text

    def languages(self) -> list[str]:
        root = resources.files(self.package)
        return sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "__pycache__")

    def names(self, language: str) -> list[str]:
        folder = resources.files(self.package).joinpath(language)
        return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".txt"))
