"""Applying one agent's action to the world as already changed by earlier actions of the
tick (docs/world.md §2, §3, §5): access, capacity and the game's rules are checked here, the
witnesses computed, and the game's consequences (a contribution, the round's outcome, the
announcement's check) derived. Pure: returns the events, in order."""

from __future__ import annotations

from typing import Any

from maai.domain.events import Event
from maai.domain.world import pgg
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OutcomeComputed,
)
from maai.domain.world.plans import answered
from maai.domain.world.state import State


def resolve(state: State, agent: str, position: int, value: dict[str, Any] | None) -> list[Event]:
    """The events of ``agent``'s action of this tick: plan changes it asked for, the action
    applied or refused (or missing: ``value`` None), and what the game derives from it."""
    config = state.config
    assert config is not None
    t = state.tick
    where = state.positions[agent]
    if value is None:
        missing = _missing_contribution(state, agent)
        # A missing contribution is a game event the moderator in the room must learn of (it
        # announces the payoffs once every contribution is in, §5); any other missing action
        # concerns the actor alone.
        description = (
            f"{agent} stated no contribution (recorded as missing, counted as 0)"
            if missing
            else f"{agent} did nothing (no readable action)"
        )
        events: list[Event] = [
            ActionResolved(
                tick=t,
                position=position,
                agent=agent,
                kind="missing",
                outcome="missing",
                location=where,
                reason=f"no readable action within {config.attempts.action} attempts",
                description=description,
                witnesses=state.present(where) if missing else [agent],
            )
        ]
        return events + missing
    plans = answered(state, agent, value)
    events = list(plans.events)
    kind = value["action"]
    refusal = refusal_of(state, agent, value)
    common: dict[str, Any] = dict(tick=t, position=position, agent=agent, kind=kind, location=where)
    fields = {k: value[k] for k in ("to", "text", "amount", "payoffs") if k in value}
    if refusal is not None:
        events.append(
            ActionResolved(
                **common,
                **fields,
                outcome="refused",
                reason=refusal,
                description=f"{agent} tried to {_verb(value)}; refused: {refusal}",
                witnesses=[agent],
            )
        )
        return events
    witnesses = state.present(where)
    if kind == "move":
        arriving = [*state.present(value["to"]), agent]
        witnesses = [a for a in config.names if a in witnesses or a in arriving]
    elif kind in ("done", "failed"):
        witnesses = [agent]
    events.append(
        ActionResolved(
            **common,
            **fields,
            outcome="applied",
            description=describe(agent, value, where),
            witnesses=witnesses,
        )
    )
    if kind in ("done", "failed") and plans.current is not None:
        events += plans.end(kind)
    return events + _game_consequences(state, agent, value)


def refusal_of(state: State, agent: str, value: dict[str, Any]) -> str | None:
    """Why the world as it stands now refuses the action, or None."""
    config = state.config
    assert config is not None
    kind = value["action"]
    where = state.positions[agent]
    game = config.game
    if kind == "move":
        to = value["to"]
        if to == where:
            return f"{agent} is already in {to}"
        capacity = config.world.location(to).capacity
        if capacity is not None and len(state.present(to)) >= capacity:
            return f"{to} is full (at most {capacity})"
        if game is not None and to == game.contribution_room and agent in config.players:
            inside = [p for p in state.present(to) if p in config.players]
            if inside:
                return f"{to} admits one player at a time; {inside[0]} is inside"
            turn = _turn(state)
            if turn != agent:
                whose = f"it is {turn}'s turn" if turn else "no player's turn now"
                return f"it is not your turn to contribute ({whose})"
    if kind == "speak" and value["to"] != "all" and state.positions.get(value["to"]) != where:
        return f"{value['to']} is no longer in {where}"
    if kind == "contribute":
        assert game is not None
        r = state.round
        if r is None:
            return "no round of the game is open"
        if agent in state.contributions.get(r, {}):
            return f"you have already contributed in round {r}"
        if where != game.contribution_room:
            return f"contributions are made in {game.contribution_room}"
        if _turn(state) != agent:
            return "it is not your turn to contribute"
    if kind == "announce":
        assert game is not None
        r = state.round
        if r is None or r not in state.outcomes:
            return "not every player has contributed yet"
        if where != game.game_room:
            return f"the outcome is announced in {game.game_room}"
    return None


def _turn(state: State) -> str | None:
    config = state.config
    assert config is not None and config.game is not None
    r = state.round
    if r is None:
        return None
    return pgg.whose_turn(
        state.rounds[r].order,
        state.contributions.get(r, {}),
        state.positions,
        config.game.contribution_room,
    )


def whose_turn(state: State) -> str | None:
    return _turn(state) if state.config is not None and state.config.game else None


def _missing_contribution(state: State, agent: str) -> list[Event]:
    """A player on its turn in the contribution room with no readable action: its
    contribution is recorded as missing (counted as 0, flagged; §5)."""
    config = state.config
    assert config is not None
    game = config.game
    if game is None or agent not in config.players or _turn(state) != agent:
        return []
    if state.positions[agent] != game.contribution_room:
        return []
    return _contribution(state, agent, None)


def _game_consequences(state: State, agent: str, value: dict[str, Any]) -> list[Event]:
    if value["action"] == "contribute":
        return _contribution(state, agent, value["amount"])
    if value["action"] == "announce":
        config = state.config
        assert config is not None
        r = state.round
        assert r is not None
        computed = state.outcomes[r].payoffs
        announced = value["payoffs"]
        differences = pgg.announcement_differences(announced, computed)
        return [
            AnnouncementChecked(
                round=r,
                tick=state.tick,
                announced=announced,
                computed=computed,
                matches=not differences,
                differences=differences,
            )
        ]
    return []


def _contribution(state: State, player: str, amount: int | None) -> list[Event]:
    config = state.config
    assert config is not None and config.game is not None
    r = state.round
    assert r is not None
    recorded = ContributionRecorded(
        round=r,
        tick=state.tick,
        player=player,
        amount=amount,
        endowment=config.endowment(player),
    )
    events: list[Event] = [recorded]
    held = {**state.contributions.get(r, {}), player: recorded}
    if len(held) == len(config.players):
        events.append(outcome(config, r, held))
    return events


def outcome(config: WorldConfig, r: int, held: dict[str, ContributionRecorded]) -> OutcomeComputed:
    assert config.game is not None
    players = config.players
    amounts = {p: held[p].amount or 0 for p in players}
    endowments = {p: config.endowment(p) for p in players}
    m = config.game.multiplier
    return OutcomeComputed(
        round=r,
        contributions=amounts,
        missing=[p for p in players if held[p].amount is None],
        total=sum(amounts.values()),
        multiplier=m,
        share=pgg.rounded_share(amounts, m),
        payoffs=pgg.payoffs(amounts, endowments, m),
    )


# --- words ----------------------------------------------------------------------------------


def _verb(value: dict[str, Any]) -> str:
    kind = value["action"]
    if kind == "move":
        return f"go to {value['to']}"
    if kind == "speak":
        return f"speak to {value['to']}"
    if kind == "contribute":
        return f"contribute {value['amount']}"
    return kind


def describe(agent: str, value: dict[str, Any], where: str) -> str:
    kind = value["action"]
    if kind == "move":
        return f"{agent} went from {where} to {value['to']}"
    if kind == "speak":
        whom = "everyone" if value["to"] == "all" else value["to"]
        return f'{agent} said to {whom}: "{value["text"]}"'
    if kind == "wait":
        return f"{agent} waited in {where}"
    if kind in ("done", "failed"):
        return f"{agent} marked its plan {kind}"
    if kind == "contribute":
        return f"{agent} contributed {value['amount']} point(s)"
    # In canonical (sorted) order: never the order a parser or a backend gave the dict.
    payoffs = ", ".join(f"{p} {v:g}" for p, v in sorted(value["payoffs"].items()))
    return f"{agent} announced the payoffs: {payoffs}"
