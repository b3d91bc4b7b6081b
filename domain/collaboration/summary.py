"""The end-of-run summary of a collaboration game."""

from __future__ import annotations

from typing import Any

from maai.domain.collaboration.state import State
from maai.domain.experiment import Summary, SummaryTable


def outcome_text(state: State) -> str:
    if state.ended is None:
        return "game not finished"
    if state.ended.outcome == "incomplete":
        return f"incomplete: {state.ended.reason}"
    points = state.points
    assert points is not None
    if points.both_collaborative:
        what = "both collaborated"
    elif points.mismatch:
        what = "mismatch"
    else:
        what = "both went individual"
    joint = sum(points.points.values())
    return f"{what}; points {joint}" if len(points.points) > 1 else f"{what}"


def summarize(run_id: str, state: State, status: str | None = None) -> Summary:
    config = state.config
    rows: list[list[str]] = []
    agents: list[dict[str, Any]] = []
    for name in state.beliefs:
        stated = state.beliefs[name]
        decision = state.decisions.get(name)
        points = state.points.points.get(name) if state.points else None
        u = config.agent(name).u_value if config else None
        record = {
            "name": name,
            "initial_belief": stated[0].belief if stated and stated[0].step == 0 else None,
            "final_belief": stated[-1].belief if stated else None,
            "final_prediction": state.latest_prediction(name),
            "choice": decision.option if decision else None,
            "strategy": decision.strategy if decision else None,
            "points": points,
            "u_value": u,
        }
        agents.append(record)
        rows.append(
            [
                name,
                _cell(record["initial_belief"]),
                _cell(record["final_belief"]),
                _cell(record["final_prediction"]),
                _cell(record["choice"]),
                _cell(record["strategy"]),
                _cell(points),
                _cell(u),
            ]
        )
    breaches = sum(len(m.breaches) for m in state.messages)
    totals = state.totals
    data = {
        "run_id": run_id,
        "status": status or state.status,
        "outcome": outcome_text(state),
        "agents": agents,
        "messages": len(state.messages),
        "breaches": breaches,
        "partner_collaborates": state.partner.collaborates if state.partner else None,
        "calls": totals.calls,
        "input_tokens": totals.input_tokens,
        "output_tokens": totals.output_tokens,
        "failed_attempts": totals.failed_attempts,
        "failure": state.failure,
    }
    footer = [
        f"messages: {len(state.messages)} ({breaches} rule breach(es) flagged); model calls: "
        f"{totals.calls}; tokens in/out: {totals.input_tokens}/{totals.output_tokens}; "
        f"failed attempts: {totals.failed_attempts}"
    ]
    if state.partner is not None:
        verdict = "collaborated" if state.partner.collaborates else "went individual"
        footer.insert(0, f"lottery partner (p = {state.partner.p:g}) {verdict}")
    return Summary(
        status=status or state.status,
        outcome=outcome_text(state),
        headline=[],
        table=SummaryTable(
            ["agent", "initial", "final", "prediction", "choice", "strategy", "points", "u"], rows
        ),
        footer=footer,
        failure=state.failure,
        data=data,
        calls=totals.calls,
        input_tokens=totals.input_tokens,
        output_tokens=totals.output_tokens,
        rounds=_exchanges(state),
    )


def _exchanges(state: State) -> int | None:
    """Exchanges used: an exchange is two messages, one each way (docs/collaboration.md); a
    baseline run exchanges none and counts none."""
    if state.config is None or state.config.baseline is not None:
        return None
    return (len(state.messages) + 1) // 2


def _cell(value: Any) -> str:
    return "—" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
