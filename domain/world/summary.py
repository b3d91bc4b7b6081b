"""The end-of-run summary of a world run: where everyone ended, the game's payoffs by round
and player, and the model calls per tick (docs/world.md §8)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from maai.domain.embeddings import ADDRESS_PREFIX
from maai.domain.experiment import Summary, SummaryTable
from maai.domain.world.state import State

_TICK = re.compile(r"^w/t(\d+)/")


def calls_per_tick(addresses: Iterable[str]) -> dict[int, int]:
    """Model calls (participants' and the utility agent's) by the tick that asked them."""
    counts: Counter[int] = Counter()
    for address in addresses:
        match = _TICK.match(address)
        if match:
            counts[int(match.group(1))] += 1
    return dict(sorted(counts.items()))


def outcome_text(state: State) -> str:
    if state.ended is None:
        return "world not finished"
    text = f"{state.ended.reason} after {state.ended.tick} tick(s)"
    config = state.config
    if config is not None and config.game is not None:
        wrong = sum(1 for a in state.announcements.values() if not a.matches)
        text += f"; {len(state.announcements)}/{config.game.rounds} round(s) announced"
        if wrong:
            text += f", {wrong} announcement(s) wrong"
    return text


def summarize(run_id: str, state: State, status: str | None = None) -> Summary:
    config = state.config
    rounds = sorted(state.outcomes)
    agents: list[dict[str, Any]] = []
    rows: list[list[str]] = []
    for name in config.names if config else []:
        payoffs = {r: state.outcomes[r].payoffs.get(name) for r in rounds}
        contributions = {r: (state.contributions.get(r, {}).get(name) or None) for r in rounds}
        record = {
            "name": name,
            "role": config.agent(name).role if config else None,
            "location": state.positions.get(name),
            "memories": len(state.memories.get(name, ())),
            "contributions": {str(r): (c.amount if c else None) for r, c in contributions.items()},
            "payoffs": {str(r): p for r, p in payoffs.items()},
        }
        agents.append(record)
        game = [f"{_cell(record['contributions'][str(r)])}→{_cell(payoffs[r])}" for r in rounds]
        rows.append(
            [name, _cell(record["role"]), _cell(record["location"]), str(record["memories"])] + game
        )
    per_tick = calls_per_tick(state.requested.keys())
    # Content-addressed (one per text in the run), so asked by no tick in particular.
    embeddings = sum(1 for a in state.requested if a.startswith(ADDRESS_PREFIX))
    totals = state.totals
    data = {
        "run_id": run_id,
        "status": status or state.status,
        "outcome": outcome_text(state),
        "ticks": state.tick,
        "agents": agents,
        "announcements": [
            {"round": a.round, "matches": a.matches, "differences": a.differences}
            for a in state.announcements.values()
        ],
        "calls_per_tick": {str(t): n for t, n in per_tick.items()},
        "embedding_calls": embeddings,
        "calls": totals.calls,
        "input_tokens": totals.input_tokens,
        "output_tokens": totals.output_tokens,
        "failed_attempts": totals.failed_attempts,
        "failure": state.failure,
    }
    spread = ", ".join(f"{t}:{n}" for t, n in per_tick.items())
    embedded = f"{embeddings} embeddings, " if embeddings else ""
    footer = [
        f"model calls: {totals.calls} ({embedded}per tick {spread}); tokens in/out: "
        f"{totals.input_tokens}/{totals.output_tokens}; failed attempts: "
        f"{totals.failed_attempts}"
    ]
    for a in state.announcements.values():
        if not a.matches:
            footer.insert(0, f"round {a.round}: wrong announcement: " + "; ".join(a.differences))
    columns = ["agent", "role", "location", "memories"] + [f"round {r} c→payoff" for r in rounds]
    return Summary(
        status=status or state.status,
        outcome=outcome_text(state),
        headline=[("ticks", str(state.tick))],
        table=SummaryTable(columns, rows),
        footer=footer,
        failure=state.failure,
        data=data,
        calls=totals.calls,
        input_tokens=totals.input_tokens,
        output_tokens=totals.output_tokens,
        rounds=len(state.outcomes) if state.config is not None and state.config.game else None,
    )


def _cell(value: Any) -> str:
    return "—" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
