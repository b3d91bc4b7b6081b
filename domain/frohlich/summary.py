"""The end-of-run summary of a Frohlich run: status, phase, round, outcome, each agent's
payoffs and missing answers, calls and tokens by phase."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from maai.domain.experiment import Summary, SummaryTable
from maai.domain.frohlich.events import ManipulatorTargetChosen
from maai.domain.frohlich.manipulator import TARGET_KEY
from maai.domain.frohlich.render import cents
from maai.domain.frohlich.state import State


@dataclass
class AgentSummary:
    name: str
    phase1_cents: int
    phase2_cents: int | None
    bank_cents: int
    missing: list[str] = field(default_factory=list)


@dataclass
class RunSummary:
    run_id: str
    status: str
    phase: int
    round: int
    outcome: str
    agents: list[AgentSummary]
    calls: int
    input_tokens: int
    output_tokens: int
    failed_attempts: int
    failure: str | None
    by_phase: dict[str, dict[str, int]]
    conditions: list[str] = field(default_factory=list)  # beyond the base protocol (§8)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.conditions:
            data.pop("conditions")  # a base run's summary reads as it always did
        return data

    def to_summary(self) -> Summary:
        rows = [
            [
                a.name,
                cents(a.phase1_cents),
                "—" if a.phase2_cents is None else cents(a.phase2_cents),
                cents(a.bank_cents),
                ", ".join(a.missing) or "—",
            ]
            for a in self.agents
        ]
        phases = "; ".join(
            f"{phase}: {t['calls']} calls, {t['input_tokens'] + t['output_tokens']} tokens"
            for phase, t in self.by_phase.items()
        )
        footer = (
            f"model calls: {self.calls} ({phases}); tokens in/out: "
            f"{self.input_tokens}/{self.output_tokens}; failed attempts: {self.failed_attempts}"
        )
        return Summary(
            status=self.status,
            outcome=self.outcome,
            headline=[("phase", str(self.phase)), ("round", str(self.round))],
            rounds=self.round,
            table=SummaryTable(
                ["agent", "Phase 1", "Phase 2", "bank balance", "missing answers"], rows
            ),
            footer=[footer, *(f"condition: {c}" for c in self.conditions)],
            failure=self.failure,
            data=self.as_dict(),
            calls=self.calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
        )


def summarize(run_id: str, state: State, status: str | None = None) -> RunSummary:
    agents = []
    for agent in state.agents.values():
        p1 = sum(p.payoff_cents for p in agent.payoffs if p.scope == "phase1")
        p2_list = [p.payoff_cents for p in agent.payoffs if p.scope == "phase2"]
        agents.append(
            AgentSummary(
                name=agent.name,
                phase1_cents=p1,
                phase2_cents=p2_list[0] if p2_list else None,
                bank_cents=agent.bank_cents,
                missing=list(agent.missing),
            )
        )
    if state.outcome is not None:
        outcome = f"agreement on {state.outcome.describe()}"
    elif state.discussion_ended:
        outcome = "no agreement"
    else:
        outcome = "discussion not finished"
    return RunSummary(
        conditions=_conditions(state),
        run_id=run_id,
        status=status or state.status,
        phase=state.phase,
        round=state.round,
        outcome=outcome,
        agents=agents,
        calls=state.totals.calls,
        input_tokens=state.totals.input_tokens,
        output_tokens=state.totals.output_tokens,
        failed_attempts=state.totals.failed_attempts,
        failure=state.failure,
        by_phase={
            phase: {
                "calls": t.calls,
                "input_tokens": t.input_tokens,
                "output_tokens": t.output_tokens,
            }
            for phase, t in sorted(state.totals_by_phase.items())
        },
    )


def _conditions(state: State) -> list[str]:
    config = state.config
    if config is None:
        return []
    out = []
    if config.original_values:
        out.append("original values (Phase-1 rounds play situations A-D)")
    if config.prompt_layout != "seed":
        out.append(f"prompt layout: {config.prompt_layout}")
    if config.answers != "free_text":
        out.append(f"answers: {config.answers} (closed questions as JSON of a schema)")
    if config.history.window_rounds is not None:
        out.append(
            f"history window: Phase-2 prompts show the last {config.history.window_rounds}"
            " rounds word for word (and the current one)"
        )
    if config.manipulator is not None:
        chosen = state.records.get(TARGET_KEY)
        if isinstance(chosen, ManipulatorTargetChosen):
            told = f"target ({chosen.target.value})"
            if state.discussion_ended:
                adopted = state.outcome is not None and state.outcome.principle is chosen.target
                told += f", adopted: {'yes' if adopted else 'no'}"
        else:
            told = "target not chosen yet"
        out.append(f"manipulator {config.manipulator.agent}: {told}")
    return out
