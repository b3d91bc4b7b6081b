"""The game's prompt templates, one file per text (``en/``)."""

from __future__ import annotations

from maai.domain.prompts import PromptSet

PROMPTS = PromptSet(__name__)
