"""The world's sections of ``maai report`` (docs/projections.md, "Reports"; the rules:
docs/world.md): the world and how the run ended; with the public-goods game, contributions
and payoffs by round and player beside the moderator's announcement (a wrong announcement
and a missing contribution flagged); then model calls per tick, the event log tick by tick
and each agent's plans (``report_log.py``).

Built from the world's table rows (the same read models as its CSV export) and the game by
round (``game.py``)."""

from __future__ import annotations

from typing import Any

from maai.domain.world.config import WorldConfig
from maai.domain.world.events import ActionResolved, WorldEnded
from maai.domain.world.world import EVERYONE
from maai.projections.charts import Level, Series, grouped_bars, label_step
from maai.projections.history import History
from maai.projections.markup import Markup, facts, figures, flag, join, paragraph, strong, table
from maai.projections.report import Section
from maai.projections.world.game import GameRound, game_rounds
from maai.projections.world.report_log import calls_section, event_log_section, plans_section

Row = dict[str, Any]


def report(history: History) -> list[Section]:
    config = history.config
    if history.experiment is None or not isinstance(config, WorldConfig):
        return []
    rows: dict[str, list[Row]] = history.experiment.views().table_rows(history)
    rounds = game_rounds(history, rows)
    sections = [world_section(history, config, rounds)]
    if config.game is not None:
        sections.append(game_section(config, rounds))
    return [
        *sections,
        calls_section(rows["model_calls"]),
        event_log_section(history, rows),
        plans_section(rows["plans"], history.agent_names),
    ]


def _ending(history: History, config: WorldConfig) -> str:
    ended = history.of(WorldEnded)
    if not ended:
        return "not ended yet"
    e = ended[-1][1]
    limit = f" (max_ticks {config.max_ticks})" if e.reason == "tick limit" else ""
    return f"{e.reason}{limit} at the start of tick {e.tick}, {config.world.clock(e.tick)}"


def world_section(history: History, config: WorldConfig, rounds: list[GameRound]) -> Section:
    """The world (locations, agents) and how the run went, in one glance."""
    world = config.world
    refused = sum(1 for _, e in history.each(ActionResolved) if e.outcome != "applied")
    pairs: list[tuple[str, Any]] = [
        ("world", f"{world.name}: {world.description}" if world.description else world.name),
        ("ended", _ending(history, config)),
        ("time", f"from {world.clock(0)}, {world.minutes_per_tick} minutes a tick"),
        # The protocol's bound on a prompt, however long the run (docs/world.md, "Long runs").
        (
            "memories in a prompt",
            f"the last tick's observations and at most {config.retrieval.k} older ones"
            " (retrieval.k)",
        ),
        ("actions refused or missing", refused),
    ]
    game = config.game
    if game is None:
        pairs.append(("game", "none (a free world)"))
    else:
        announced = sum(1 for r in rounds if r.announcement is not None)
        wrong = sum(1 for r in rounds if r.wrong_announcement)
        missing = sum(len(r.missing) for r in rounds)
        order = "fixed: " + ", ".join(game.turn_order) if game.turn_order else "drawn each round"
        pairs += [
            (
                "game",
                f"public goods: {len(config.players)} players, moderator {config.moderator}, "
                f"endowment {game.endowment}, multiplier {game.multiplier:g}",
            ),
            ("rounds announced", f"{announced} of {game.rounds}"),
            ("turn order", order),
            ("wrong announcements", flag(str(wrong)) if wrong else 0),
            ("missing contributions", flag(str(missing)) if missing else 0),
        ]
    locations = [
        (
            loc.name,
            loc.description,
            "everyone" if loc.allowed == EVERYONE else ", ".join(loc.allowed),
            loc.capacity if loc.capacity is not None else "no limit",
        )
        for loc in world.locations
    ]
    if game is None:
        agent_columns = ["agent", "starts in", "public bio"]
        agents: list[tuple[Any, ...]]
        agents = [(a.name, a.start, a.public_bio) for a in world.agents]
    else:
        agent_columns = ["agent", "role", "starts in", "endowment", "priming", "public bio"]
        agents = [
            (
                a.name,
                a.role or "",
                a.start,
                config.endowment(a.name) if a.role == "player" else "",
                a.priming,
                a.public_bio,
            )
            for a in world.agents
        ]
    return Section(
        "The world and how the run went",
        join(
            [
                facts(pairs),
                table(["location", "description", "who may enter", "capacity"], locations),
                table(agent_columns, agents),
            ]
        ),
    )


def game_section(config: WorldConfig, rounds: list[GameRound]) -> Section:
    """Contributions and payoffs by round and player, the outcome beside the announcement."""
    if not rounds:
        return Section("The public-goods game", paragraph("No round has begun yet.", "no-data"))
    assert config.game is not None
    labels = [f"round {r.number}" for r in rounds]
    every = label_step(len(labels), max(len(label) for label in labels))
    players = config.players
    endowments = {p.endowment for r in rounds for p in r.players}
    # One endowment for everyone: a line at it shows how much of it each player gave.
    levels = [Level(e, f"endowment {e}") for e in endowments] if len(endowments) == 1 else []
    contributed = grouped_bars(
        "contributions",
        "Contribution per player and round",
        labels,
        [Series(p, [r.players[i].amount for r in rounds]) for i, p in enumerate(players)],
        x_label="round",
        y_label="points contributed",
        levels=levels,
        show_values=True,
        label_every=every,
    )
    paid = grouped_bars(
        "payoffs",
        "Payoff per player and round (computed by code)",
        labels,
        [Series(p, [r.players[i].payoff for r in rounds]) for i, p in enumerate(players)],
        x_label="round",
        y_label="payoff (points)",
        levels=levels,
        show_values=True,
        label_every=every,
    )
    return Section(
        "The public-goods game",
        join([*_warnings(rounds), figures(contributed, paid), _players_table(rounds)]),
    )


def _warnings(rounds: list[GameRound]) -> list[Markup]:
    """One line per wrong announcement and per missing contribution, above everything."""
    lines = []
    for r in rounds:
        if r.wrong_announcement and r.announcement is not None:
            said = "; ".join(r.announcement.differences)
            lines.append(
                f"Round {r.number}: the moderator's announcement was wrong ({said}); the "
                "computed payoffs stand."
            )
        for player in r.missing:
            lines.append(
                f"Round {r.number}: {player}'s contribution is missing (no valid amount "
                "within the attempts); it counts as 0."
            )
    return [paragraph(flag(line)) for line in lines]


def _players_table(rounds: list[GameRound]) -> Markup:
    rows: list[tuple[Any, ...]] = []
    for r in rounds:
        if r.announcement is None:
            verdict: Any = "not yet announced"
        else:
            verdict = "matches" if r.announcement.matches else flag("wrong")
        for p in r.players:
            if p.missing:
                given: Any = flag("missing (counts 0)")
            else:
                given = "" if p.amount is None else p.amount
            said: Any = "" if p.announced is None else f"{p.announced:.2f}"
            if p.announced_wrong:
                said = flag(f"{said or 'not announced'} (computed {p.payoff:.2f})")
            rows.append(
                (
                    r.number,
                    p.turn,
                    p.player,
                    given,
                    p.endowment,
                    "" if p.payoff is None else f"{p.payoff:.2f}",
                    said,
                )
            )
        rows.append(
            (
                r.number,
                "",
                strong("all"),
                r.total,
                "",
                "" if r.share is None else f"share {r.share:.2f} each",
                verdict,
            )
        )
    columns = ["round", "turn", "player", "contribution", "endowment", "payoff", "announced"]
    note = paragraph(
        "Payoff: endowment − contribution + multiplier × total / players, computed by code "
        "(half-even to 2 decimals); a missing contribution counts 0. Announced: what the "
        "moderator said, checked within half a cent (docs/world.md §5).",
        "note",
    )
    return join([table(columns, rows), note])
