"""The game's agent log (JSON): each player's prompts and the facts it established."""

from __future__ import annotations

from typing import Any

from maai.projections.history import History, UnknownAgentError, cite

from maai_ultimatum.events import OfferMade, ResponseMade

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
