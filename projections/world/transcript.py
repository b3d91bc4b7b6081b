"""The event log of a world run as text (docs/world.md §8): tick by tick, each event with
its location, actor, description and witnesses; plans, game rounds, contributions, the
computed outcome and the announcement's check in between."""

from __future__ import annotations

from maai.domain.answers import AnswerMissing, AnswerRejected
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OrderDrawn,
    OutcomeComputed,
    PlanChanged,
    RoundStarted,
    WorldEnded,
)
from maai.projections.history import History


def transcript(history: History) -> str:
    config = history.config
    lines = [f"# World run {history.run_id}"]
    if isinstance(config, WorldConfig):
        lines.append(f"World: {config.world.name}; {len(config.names)} agents")
    for entry in history.entries:
        lines.extend(_lines(entry.event, config))
    return "\n".join(lines) + "\n"


def _lines(e: object, config: object) -> list[str]:
    if isinstance(e, OrderDrawn):
        clock = config.world.clock(e.tick) if isinstance(config, WorldConfig) else ""
        return ["", f"## Tick {e.tick} ({clock}); order: {', '.join(e.order)}"]
    if isinstance(e, ActionResolved):
        mark = "" if e.outcome == "applied" else f" [{e.outcome}]"
        who = ", ".join(e.witnesses)
        return [f"[{e.location}] {e.description}{mark} (witnesses: {who})"]
    if isinstance(e, PlanChanged):
        return [_plan_line(e)]
    if isinstance(e, RoundStarted):
        return [f"  round {e.round} begins; turn order: {', '.join(e.order)}"]
    if isinstance(e, ContributionRecorded):
        amount = "missing (counts 0)" if e.amount is None else str(e.amount)
        return [f"  contribution of {e.player} in round {e.round}: {amount}"]
    if isinstance(e, OutcomeComputed):
        pays = ", ".join(f"{p} {v:.2f}" for p, v in e.payoffs.items())
        return [f"  outcome of round {e.round} (code): total {e.total}, payoffs {pays}"]
    if isinstance(e, AnnouncementChecked):
        verdict = "matches" if e.matches else "WRONG: " + "; ".join(e.differences)
        return [f"  announcement of round {e.round}: {verdict}"]
    if isinstance(e, AnswerRejected):
        return [f"  {e.agent} ({e.address}) sent back: {e.reason}"]
    if isinstance(e, AnswerMissing):
        return [f"  {e.agent} ({e.slot}) missing: {e.last_reason}"]
    if isinstance(e, WorldEnded):
        return ["", f"The world ended at tick {e.tick}: {e.reason}."]
    return []


def _plan_line(e: PlanChanged) -> str:
    what = f"{e.description} in {e.location}"
    if e.status == "promoted":
        return f"  plan promoted for {e.agent}, now current: {what}"
    queued = f" (queued, place {e.place})" if e.place else ""
    return f"  plan {e.status} by {e.agent}{queued}: {what}"
