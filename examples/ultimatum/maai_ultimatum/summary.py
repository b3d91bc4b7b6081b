"""The end-of-run summary: the offer, the answer and the payoffs."""

from __future__ import annotations

from maai.domain.experiment import Summary, SummaryTable

from maai_ultimatum.state import State


def outcome_text(state: State) -> str:
    payoffs, offer = state.payoffs, state.offer
    if payoffs is None:
        return "the game has not ended"
    if payoffs.outcome == "incomplete":
        return "incomplete: an answer could not be read"
    assert offer is not None and offer.amount is not None
    return f"offer of {offer.amount} {payoffs.outcome}"


def summarize(run_id: str, state: State, status: str | None = None) -> Summary:
    config, totals = state.config, state.totals
    payoffs = state.payoffs.payoffs if state.payoffs else {}
    names = [a.name for a in config.agents] if config else []
    rows = [
        [name, role, str(payoffs.get(name, "—"))] for name, role in zip(names, ROLES, strict=False)
    ]
    return Summary(
        status=status or state.status,
        outcome=outcome_text(state),
        headline=[("pie", str(config.pie) if config else "—")],
        table=SummaryTable(["player", "role", "points"], rows),
        footer=[
            f"model calls: {totals.calls}; tokens in/out: {totals.input_tokens}/"
            f"{totals.output_tokens}; failed attempts: {totals.failed_attempts}"
        ],
        failure=state.failure,
        data={"run_id": run_id, "outcome": outcome_text(state), "payoffs": payoffs},
        calls=totals.calls,
        input_tokens=totals.input_tokens,
        output_tokens=totals.output_tokens,
    )


ROLES = ("proposer", "responder")
