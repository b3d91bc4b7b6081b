"""The game's leak audit: no responder prompt holds the proposer's private reasoning."""

from __future__ import annotations

from maai.projections.history import History
from maai.projections.leaks import MIN_CHARS, Item, Leak, LeakReport, excerpt

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade


def audit_leaks(history: History) -> LeakReport:
    config = history.config
    if not isinstance(config, UltimatumConfig):
        return LeakReport(history.run_id, 0, 0, ())
    items = [
        Item("reasoning", e.agent, e.reasoning.strip(), entry.seq)
        for entry, e in history.each(OfferMade)
        if e.reasoning and len(e.reasoning.strip()) >= MIN_CHARS
    ]
    leaks, checked = [], 0
    for entry, requested in history.requests():
        request = requested.request
        if request.agent != config.responder:
            continue
        checked += 1
        prompt = f"{request.system}\n{request.input}"
        for item in items:
            if item.text in prompt:
                leaks.append(
                    Leak(
                        request.agent,
                        request.address,
                        entry.seq,
                        item.kind,
                        item.owner,
                        item.seq,
                        excerpt(item.text),
                    )
                )
    return LeakReport(history.run_id, checked, len(items), tuple(leaks))
