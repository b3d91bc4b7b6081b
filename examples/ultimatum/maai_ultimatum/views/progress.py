"""The live lines of ``maai run``: the offer, the answer and the outcome as they land."""

from __future__ import annotations

from typing import Any

from maai.domain.events import Event
from rich.markup import escape

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade
from maai_ultimatum.views.transcript import said


class Progress:
    def __init__(self, config: UltimatumConfig) -> None:
        self.config = config

    def lines(self, event: Event, state: Any) -> list[str]:
        if isinstance(event, OfferMade | ResponseMade | PayoffsSet):
            return [escape(said(event).replace("**", ""))]
        return []
