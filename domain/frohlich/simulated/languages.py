"""The simulated participant's phrases by language code: English, Spanish and Mandarin (a
language is one more ``Phrases`` instance, in a module of its own, listed here)."""

from __future__ import annotations

from collections.abc import Mapping

from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.simulated.phrases_en import EN
from maai.domain.frohlich.simulated.phrases_es import ES
from maai.domain.frohlich.simulated.phrases_zh import ZH

PHRASES: Mapping[str, Phrases] = {"en": EN, "es": ES, "zh": ZH}


def phrases_for(language: str) -> Phrases:
    try:
        return PHRASES[language]
    except KeyError:
        known = ", ".join(sorted(PHRASES))
        raise ValueError(
            f"the simulated participant has no phrases for {language!r} ({known})"
        ) from None
