"""The rows of the world's tables (docs/world.md §8), one per fact, each citing its event."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    MemoriesScored,
    OutcomeComputed,
    PlanChanged,
)
from maai.domain.world.summary import calls_per_tick
from maai.projections.calls import call_rows, collect_calls
from maai.projections.history import History

Row = dict[str, Any]


def _clock(history: History, tick: int) -> str | None:
    config = history.config
    return config.world.clock(tick) if isinstance(config, WorldConfig) else None


def events(history: History) -> Iterator[Row]:
    for entry, e in history.each(ActionResolved):
        yield {
            "tick": e.tick,
            "time": _clock(history, e.tick),
            "position": e.position,
            "location": e.location,
            "actor": e.agent,
            "kind": e.kind,
            "outcome": e.outcome,
            "to": e.to,
            "description": e.description,
            "reason": e.reason,
            "witnesses": ";".join(e.witnesses),
            "seq": entry.seq,
            "hash": entry.hash,
        }


def memories(history: History) -> Iterator[Row]:
    for entry, e in history.each(MemoriesScored):
        for i, m in enumerate(e.memories):
            yield {
                "agent": e.agent,
                "scored_tick": e.tick,
                "created_tick": m.created_tick,
                "index": i,
                "description": m.description,
                "importance": m.importance,
                "seq": entry.seq,
                "hash": entry.hash,
            }


def plans(history: History) -> Iterator[Row]:
    for entry, e in history.each(PlanChanged):
        yield {
            "agent": e.agent,
            "index": e.index,
            "tick": e.tick,
            "status": e.status,
            "plan": e.plan,
            "place": e.place,
            "location": e.location,
            "description": e.description,
            "stop_condition": e.stop_condition,
            "max_ticks": e.max_ticks,
            "seq": entry.seq,
            "hash": entry.hash,
        }


def contributions(history: History) -> Iterator[Row]:
    for entry, e in history.each(ContributionRecorded):
        yield {
            "round": e.round,
            "tick": e.tick,
            "player": e.player,
            "amount": e.amount,
            "missing": e.amount is None,
            "endowment": e.endowment,
            "seq": entry.seq,
            "hash": entry.hash,
        }


def payoffs(history: History) -> Iterator[Row]:
    announced = {e.round: (entry, e) for entry, e in history.each(AnnouncementChecked)}
    for entry, e in history.each(OutcomeComputed):
        checked = announced.get(e.round)
        for player, payoff in e.payoffs.items():
            said = checked[1].announced.get(player) if checked else None
            yield {
                "round": e.round,
                "player": player,
                "contribution": e.contributions[player],
                "missing": player in e.missing,
                "total": e.total,
                "multiplier": e.multiplier,
                "share": e.share,
                "payoff": payoff,
                "announced": said,
                "announcement_matches": checked[1].matches if checked else None,
                "seq": entry.seq,
                "hash": entry.hash,
            }


def ticks(history: History) -> Iterator[Row]:
    addresses = [c.address for c in collect_calls(history)]
    for tick, count in calls_per_tick(addresses).items():
        yield {"tick": tick, "time": _clock(history, tick), "calls": count}


def model_calls(history: History) -> Iterator[Row]:
    return call_rows(collect_calls(history), lambda address: {"tick": tick_of(address)})


def tick_of(address: str) -> int | None:
    """The tick a call's address (``w/t3/Ann/act/1``) or slot (``w/t3/Ann/act``) belongs to."""
    head = address.split("/")
    if len(head) > 1 and head[0] == "w" and head[1].startswith("t") and head[1][1:].isdigit():
        return int(head[1][1:])
    return None
