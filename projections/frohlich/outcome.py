"""Run-level facts shared by several projections: the discussion's outcome, the Phase-2
payment, and model usage per phase."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from maai.domain.frohlich.events import (
    BallotResolved,
    DiscussionEnded,
    DistributionsDrawn,
    GroupDistributionChosen,
)
from maai.domain.frohlich.types import PrincipleChoice
from maai.projections.frohlich.calls import Call, site_of
from maai.projections.history import History


def choice_json(choice: PrincipleChoice | None) -> dict[str, Any] | None:
    if choice is None:
        return None
    return {
        "principle": choice.principle.value,
        "amount": choice.amount,
        "text": choice.describe(),
    }


def outcome_json(history: History) -> dict[str, Any]:
    ended = history.of(DiscussionEnded)
    ballots = history.of(BallotResolved)
    if ended:
        entry, event = ended[-1]
        return {
            "discussion_ended": True,
            "agreement": choice_json(event.agreement),
            "rounds_used": event.rounds_used,
            "ballots_held": len(ballots),
            "seq": entry.seq,
            "hash": entry.hash,
        }
    return {
        "discussion_ended": False,
        "agreement": None,
        "rounds_used": None,
        "ballots_held": len(ballots),
        "seq": None,
        "hash": None,
    }


def phase2_payment_json(history: History) -> dict[str, Any] | None:
    """The Phase-2 table and how the group's distribution was chosen; ``None`` before 2.2."""
    drawn = [(e, d) for e, d in history.each(DistributionsDrawn) if d.scope == "phase2"]
    chosen = history.of(GroupDistributionChosen)
    if not drawn and not chosen:
        return None
    table = None
    if drawn:
        entry, event = drawn[-1]
        table = {
            "seq": entry.seq,
            "hash": entry.hash,
            "label": event.label,
            "multiplier": event.multiplier,
            "fixed": event.fixed,
            "distributions": event.distributions,
        }
    choice = None
    if chosen:
        entry2, pick = chosen[-1]
        choice = {
            "seq": entry2.seq,
            "hash": entry2.hash,
            "distribution": pick.distribution,
            "how": "drawn uniformly at random" if pick.drawn else "picked by the agreed principle",
            "agreement": choice_json(pick.agreement),
            "constraint_satisfied": pick.constraint_satisfied,
            "label": pick.label,
        }
    return {"table": table, "chosen": choice}


PHASES = {1: "phase1", 2: "phase2"}


def _usage() -> dict[str, int]:
    return {"calls": 0, "pending": 0, "input_tokens": 0, "output_tokens": 0, "failed_attempts": 0}


def usage_json(calls: Iterable[Call]) -> dict[str, Any]:
    """Calls and tokens in total, per phase and per caller (the utility agent apart)."""
    total = _usage()
    by_phase: dict[str, dict[str, int]] = {}
    by_agent: dict[str, dict[str, int]] = {}
    for call in calls:
        phase = PHASES.get(site_of(call.address).phase or 0, "other")
        for bucket in (
            total,
            by_phase.setdefault(phase, _usage()),
            by_agent.setdefault(call.caller, _usage()),
        ):
            bucket["failed_attempts"] += len(call.failures)
            if call.completed is None:
                bucket["pending"] += 1
                continue
            usage = call.completed[1].answer.usage
            bucket["calls"] += 1
            bucket["input_tokens"] += usage.input_tokens
            bucket["output_tokens"] += usage.output_tokens
    return {"total": total, "by_phase": by_phase, "by_agent": by_agent}
