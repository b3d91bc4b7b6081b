"""The rows of the collaboration game's CSV tables (``tables.py`` declares their columns)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from maai.projections.calls import call_rows
from maai.projections.collaboration import facts
from maai.projections.collaboration.calls import collect_calls, site_of
from maai.projections.history import History, cite

Row = dict[str, Any]


def beliefs(history: History) -> Iterator[Row]:
    for stated in facts.beliefs(history):
        event = stated.event
        answer = stated.answer[1] if stated.answer else None
        yield {
            "agent": event.agent,
            "step": event.step,
            "kind": stated.kind,
            "belief": event.belief,
            "prediction": event.prediction,
            "partner_belief": stated.partner_belief,
            "prediction_error": stated.prediction_error,
            "source": answer.source if answer else None,
            "attempt": answer.attempt if answer else None,
            **cite(stated.entry),
        }


def messages(history: History) -> Iterator[Row]:
    for entry, event in facts.messages(history):
        yield {
            "index": event.index,
            "agent": event.agent,
            "text": event.text,
            "breaches": len(event.breaches),
            "breach_text": "; ".join(event.breaches) or None,
            "missing": event.text is None,
            **cite(entry),
        }


def decisions(history: History) -> Iterator[Row]:
    config = facts.config_of(history)
    awarded = facts.points(history)
    stated = facts.beliefs(history)
    for agent, (entry, event) in facts.decisions(history).items():
        option = facts.option_of(config, agent, event.option) if config else None
        mine = [s.event for s in stated if s.event.agent == agent and s.entry.seq < entry.seq]
        predictions = [s.prediction for s in mine if s.prediction is not None]
        answer = facts.decision_answer(history, agent)
        yield {
            "agent": agent,
            "status": "missing" if event.option is None else "made",
            "option": event.option,
            "strategy": event.strategy,
            "points": awarded[1].points.get(agent) if awarded else None,
            "u_value": config.agent(agent).u_value if config else None,
            "u_star": facts.option_u_star(config, agent, option) if config and option else None,
            "initial_belief": mine[0].belief if mine and mine[0].step == 0 else None,
            "final_belief": mine[-1].belief if mine else None,
            "final_prediction": predictions[-1] if predictions else None,
            "source": answer[1].source if answer else None,
            "attempt": answer[1].attempt if answer else None,
            **cite(entry),
        }


def outcome(history: History) -> Iterator[Row]:
    config = facts.config_of(history)
    ended = facts.ended(history)
    awarded = facts.points(history)
    drawn = facts.partner_drawn(history)
    sent = facts.messages(history)
    row: Row = {
        "outcome": ended[1].outcome if ended else None,
        "reason": ended[1].reason if ended else None,
        "baseline": config.baseline is not None if config else None,
        "exchanges": config.exchanges if config and config.baseline is None else None,
        "disclose_initial_belief": (
            config.disclose_initial_belief if config and config.baseline is None else None
        ),
        "message_rule": config.message_rule if config and config.baseline is None else None,
        "messages": len(sent),
        "breaches": sum(len(m.breaches) for _, m in sent),
        "mismatch": awarded[1].mismatch if awarded else None,
        "both_collaborative": awarded[1].both_collaborative if awarded else None,
        "joint_points": facts.joint_points(history),
        "partner_p": drawn[1].p if drawn else None,
        "partner_draw": drawn[1].draw if drawn else None,
        "partner_collaborates": drawn[1].collaborates if drawn else None,
    }
    if ended:
        row.update(cite(ended[0]))
    yield row


def model_calls(history: History) -> Iterator[Row]:
    return call_rows(collect_calls(history), lambda address: {"step": site_of(address).step})
