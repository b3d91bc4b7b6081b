"""The Frohlich experiment's prompt templates, one file per text, per language (``en/``);
loaded by the generic ``maai.domain.prompts.PromptSet``."""

from __future__ import annotations

from string import Template

from maai.domain.prompts import PromptSet

PROMPTS = PromptSet(__name__)


def template(name: str, language: str = "en") -> Template:
    return PROMPTS.template(name, language)


def render(template_name: str, language: str = "en", /, **values: object) -> str:
    return PROMPTS.render(template_name, language, **values)
