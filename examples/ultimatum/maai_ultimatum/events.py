"""The game's facts as events; answers are read through maai's answer events first."""

from __future__ import annotations

from typing import ClassVar, Literal

from maai.domain.answers import ANSWER_EVENTS
from maai.domain.events import Event


class OfferMade(Event):
    """The proposer's offer to the responder; ``amount`` is None when no readable offer came
    within the attempts. ``reasoning`` is private to the proposer."""

    TYPE: ClassVar[str] = "ultimatum.offer"
    agent: str
    amount: int | None
    reasoning: str | None = None

    @property
    def key(self) -> str:
        return "offer"


class ResponseMade(Event):
    """The responder's answer; ``accepted`` is None when none could be read."""

    TYPE: ClassVar[str] = "ultimatum.response"
    agent: str
    accepted: bool | None

    @property
    def key(self) -> str:
        return "response"


class PayoffsSet(Event):
    """What each player gets, computed by code: the split when accepted, nothing otherwise."""

    TYPE: ClassVar[str] = "ultimatum.payoffs"
    outcome: Literal["accepted", "rejected", "incomplete"]
    payoffs: dict[str, int]

    @property
    def key(self) -> str:
        return "payoffs"


ULTIMATUM_EVENTS: tuple[type[Event], ...] = (*ANSWER_EVENTS, OfferMade, ResponseMade, PayoffsSet)
