"""The public-goods game of one world run, round by round (docs/world.md §5), for the reports:
each player's contribution and payoff beside what the moderator announced.

Built from the world's table rows (``contributions``, ``payoffs``: the same read models as
the CSV export) and the two game facts no table carries: each round's turn order
(``pgg.round_started``) and the announcement's check with its differences
(``pgg.announcement``)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from maai.domain.world.config import WorldConfig
from maai.domain.world.events import AnnouncementChecked, RoundStarted
from maai.projections.history import History

Row = dict[str, Any]

HALF_CENT = Decimal("0.005")
"""An announced payoff within half a cent of the computed one matches (docs/world.md §5)."""


@dataclass(frozen=True)
class PlayerRound:
    """One player in one round; ``None`` where the run has not got that far."""

    player: str
    turn: int | None  # 1 = first in the round's turn order
    endowment: int
    contributed: bool  # a contribution was recorded (``amount`` is None when it was missing)
    amount: int | None
    payoff: float | None  # computed by code
    announced: float | None  # what the moderator said; None before the announcement
    announcement_made: bool

    @property
    def missing(self) -> bool:
        return self.contributed and self.amount is None

    @property
    def share(self) -> float | None:
        """The contribution as a share of the endowment (a missing one has none)."""
        if self.amount is None or self.endowment <= 0:
            return None
        return self.amount / self.endowment

    @property
    def announced_wrong(self) -> bool:
        """The announcement gave this player another payoff than code computed, or none."""
        if not self.announcement_made or self.payoff is None:
            return False
        if self.announced is None:
            return True
        return abs(Decimal(str(self.announced)) - Decimal(str(self.payoff))) >= HALF_CENT


@dataclass(frozen=True)
class GameRound:
    number: int
    started_tick: int | None
    order: list[str]
    players: list[PlayerRound]  # in the config's order of players
    total: int | None  # Σc, once the outcome is computed
    share: float | None  # m·Σc/N
    announcement: AnnouncementChecked | None

    @property
    def wrong_announcement(self) -> bool:
        return self.announcement is not None and not self.announcement.matches

    @property
    def missing(self) -> list[str]:
        return [p.player for p in self.players if p.missing]


def game_rounds(history: History, rows: dict[str, list[Row]]) -> list[GameRound]:
    """Every round begun so far, in order (none for a world without the game)."""
    config = history.config
    if not isinstance(config, WorldConfig) or config.game is None:
        return []
    started = {e.round: e for _, e in history.each(RoundStarted)}
    checked = {e.round: e for _, e in history.each(AnnouncementChecked)}
    given = {(r["round"], r["player"]): r for r in rows["contributions"]}
    paid = {(r["round"], r["player"]): r for r in rows["payoffs"]}
    numbers = sorted(set(started) | {r for r, _ in given} | {r for r, _ in paid})
    rounds = []
    for number in numbers:
        order = started[number].order if number in started else []
        outcome = next((r for (n, _), r in paid.items() if n == number), None)
        announcement = checked.get(number)
        players = []
        for player in config.players:
            contribution = given.get((number, player))
            payoff = paid.get((number, player))
            players.append(
                PlayerRound(
                    player=player,
                    turn=order.index(player) + 1 if player in order else None,
                    endowment=(
                        contribution["endowment"] if contribution else config.endowment(player)
                    ),
                    contributed=contribution is not None,
                    amount=contribution["amount"] if contribution else None,
                    payoff=payoff["payoff"] if payoff else None,
                    announced=announcement.announced.get(player) if announcement else None,
                    announcement_made=announcement is not None,
                )
            )
        rounds.append(
            GameRound(
                number=number,
                started_tick=started[number].tick if number in started else None,
                order=order,
                players=players,
                total=outcome["total"] if outcome else None,
                share=outcome["share"] if outcome else None,
                announcement=announcement,
            )
        )
    return rounds
