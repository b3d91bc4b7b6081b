"""The game's agent log (JSON), transcript (Markdown) and live progress lines."""

from __future__ import annotations

from typing import Any

from maai.domain.events import Event
from maai.projections.history import History, UnknownAgentError, cite
from rich.markup import escape

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade

FORMAT = "maai.ultimatum.agent_log/1"


def agent_log(history: History, agent: str | None = None) -> dict[str, Any]:
    names = history.agent_names
    if agent is not None and agent not in names:
        raise UnknownAgentError(agent, names)
    agents: dict[str, Any] = {}
    for name in names if agent is None else [agent]:
        prompts = []
        for entry, requested in history.requests():
            if requested.request.agent == name:
                system, text = history.prompt(entry)
                prompts.append(
                    {
                        **cite(entry),
                        "address": requested.request.address,
                        "system": str(system),
                        "input": str(text),
                    }
                )
        facts = [
            {**cite(entry), "type": event.TYPE, **event.model_dump(mode="json")}
            for entry, event in history.each(OfferMade, ResponseMade)
            if event.agent == name
        ]
        agents[name] = {"prompts": prompts, "facts": facts}
    return {"format": FORMAT, "run_id": history.run_id, "status": history.status, "agents": agents}


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
        lines.append(_said(event))
    return "\n".join(lines).rstrip("\n") + "\n"


def _said(event: Event) -> str:
    if isinstance(event, OfferMade):
        amount = "no readable offer" if event.amount is None else f"offers {event.amount}"
        return f"**{event.agent}** {amount}."
    if isinstance(event, ResponseMade):
        verdict = {True: "accepts", False: "rejects", None: "gives no readable answer"}
        return f"**{event.agent}** {verdict[event.accepted]}."
    assert isinstance(event, PayoffsSet)
    points = ", ".join(f"{name} {value}" for name, value in event.payoffs.items())
    return f"Outcome: {event.outcome}; points: {points}."


class Progress:
    def __init__(self, config: UltimatumConfig) -> None:
        self.config = config

    def lines(self, event: Event, state: Any) -> list[str]:
        if isinstance(event, OfferMade | ResponseMade | PayoffsSet):
            return [escape(_said(event).replace("**", ""))]
        return []
