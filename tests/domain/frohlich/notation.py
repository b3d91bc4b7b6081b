"""The short notation the parser tests write expected values in: a choice as ``c:12000``
(letter, then the amount for (c)/(d)), a ranking as ``cadb/sure`` (best first, certainty)."""

from __future__ import annotations

from maai.domain.frohlich.types import Certainty, Principle, PrincipleChoice, Ranking


def choice_of(value: str) -> PrincipleChoice:
    letter, _, amount = str(value).partition(":")
    return PrincipleChoice(principle=Principle(letter), amount=int(amount) if amount else None)


def ranking_of(value: str) -> Ranking:
    order, certainty = value.split("/")
    return Ranking(order=tuple(Principle(c) for c in order), certainty=Certainty(certainty))
