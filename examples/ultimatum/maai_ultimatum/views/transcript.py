"""The game as Markdown: the pie, the players, the offer, the answer and the outcome."""

from __future__ import annotations

from maai.domain.events import Event
from maai.projections.history import History

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade


def transcript(history: History) -> str:
    lines = [f"# Ultimatum game, run {history.run_id}", ""]
    config = history.config
    if isinstance(config, UltimatumConfig):
        lines += [
            f"- Pie: {config.pie} points",
            f"- Proposer: {config.proposer}",
            f"- Responder: {config.responder}",
            "",
        ]
    for _, event in history.each(OfferMade, ResponseMade, PayoffsSet):
        lines.append(said(event))
    return "\n".join(lines).rstrip("\n") + "\n"


def said(event: Event) -> str:
    if isinstance(event, OfferMade):
        amount = "no readable offer" if event.amount is None else f"offers {event.amount}"
        return f"**{event.agent}** {amount}."
    if isinstance(event, ResponseMade):
        verdict = {True: "accepts", False: "rejects", None: "gives no readable answer"}
        return f"**{event.agent}** {verdict[event.accepted]}."
    assert isinstance(event, PayoffsSet)
    points = ", ".join(f"{name} {value}" for name, value in event.payoffs.items())
    return f"Outcome: {event.outcome}; points: {points}."
