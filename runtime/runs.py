"""Starting, resuming and summarizing runs: the services behind the CLI."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from maai.domain.events import RunStarted
from maai.domain.frohlich.config import ConfigError, FrohlichConfig, parse_config
from maai.domain.frohlich.state import State
from maai.ledger import ConcurrencyError, EventStore
from maai.runtime.engine import load_state, to_new_event

KIND = "frohlich"


def load_config(path: str | Path, *, seed: int | None = None) -> FrohlichConfig:
    """Read and validate a YAML config; errors name the file (and the key path)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{path}: {problem}{where}") from None
    if isinstance(data, dict) and seed is not None:
        data = {**data, "seed": seed}
    return parse_config(data, source=str(path))


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def code_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("maai")
    except PackageNotFoundError:
        return "unknown"


def start_run(
    store: EventStore,
    config: FrohlichConfig,
    *,
    run_id: str | None = None,
    trace_id: str | None = None,
) -> str:
    """Create the run and record its first event. The config holds no secrets (keys are
    named by environment variable only), so it is stored as it is."""
    run_id = run_id or new_run_id()
    snapshot = config.model_dump(mode="json")
    store.create_run(run_id, KIND, snapshot)
    store.append(run_id, 0, [to_new_event(_run_started(snapshot, config.seed, trace_id))])
    return run_id


def _run_started(snapshot: dict[str, Any], seed: int, trace_id: str | None) -> RunStarted:
    return RunStarted(
        experiment=KIND,
        config=snapshot,
        seed=seed,
        trace_id=trace_id,
        code_version=code_version(),
    )


def ensure_started(store: EventStore, run_id: str, config: FrohlichConfig) -> bool:
    """Record ``run.started`` for a run that has no events yet: its process died between
    creating the run and recording its first event (``start_run`` takes two writes). Returns
    whether it was recorded here; a writer that got there first is fine."""
    if store.head(run_id) != 0:
        return False
    snapshot = config.model_dump(mode="json")
    try:
        store.append(run_id, 0, [to_new_event(_run_started(snapshot, config.seed, None))])
    except ConcurrencyError:
        return False
    return True


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

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


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


def replay_state(store: EventStore, run_id: str) -> State:
    """Rebuild a run's state from its events alone: no model, no network."""
    state, _ = load_state(store, run_id)
    return state
