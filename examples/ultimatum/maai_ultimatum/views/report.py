"""The game's sections of ``maai report`` and of a run's page in ``maai view``: the offer, the
answer and the points. ``maai.projections.views.Views`` finds this module by its name, and
maai's generic page adds these sections after the run's facts; the blocks
(``maai.projections.markup``) are maai's templates, so every text is escaped."""

from __future__ import annotations

from maai.projections.history import History
from maai.projections.markup import facts, paragraph, table
from maai.projections.report import Section

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade


def report(history: History) -> list[Section]:
    config = history.config
    if not isinstance(config, UltimatumConfig):
        return []
    offer = next((e for _, e in history.each(OfferMade)), None)
    response = next((e for _, e in history.each(ResponseMade)), None)
    payoffs = next((e for _, e in history.each(PayoffsSet)), None)
    if offer is None:
        game = paragraph("No offer was made yet.", "no-data")
    else:
        answer = "not yet given" if response is None else _answer(response.accepted)
        offered = "no readable offer" if offer.amount is None else f"{offer.amount} points"
        game = facts(
            [
                ("pie", f"{config.pie} points"),
                ("proposer", config.proposer),
                ("offer", offered),
                ("responder", config.responder),
                ("answer", answer),
                ("outcome", payoffs.outcome if payoffs else "not yet set"),
            ]
        )
    sections = [Section("The game", game)]
    if payoffs is not None:
        rows = [(name, points) for name, points in sorted(payoffs.payoffs.items())]
        sections.append(Section("Points", table(["player", "points"], rows)))
    return sections


def _answer(accepted: bool | None) -> str:
    if accepted is None:
        return "no readable answer"
    return "accepted" if accepted else "rejected"
