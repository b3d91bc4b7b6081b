"""The world's sections of ``maai study report`` (docs/studies.md, "Report"; the rules:
docs/world.md §5): over the study's runs of the public-goods game, the mean contribution (as
a share of the endowment) by round and condition, and by the players' priming where they
were primed; the payoffs' distribution by condition; and the runs, with those that played no
game listed as such.

The unit is the run: the players of one run play together, so their contributions are not
independent samples. Each run gives one value per round, the mean share its players
contributed; a condition's mean and its 95% interval (Student's t, ``statistics.py``) are
over those run values, and n counts runs. A missing contribution (no valid amount within the
attempts) is left out of the means: the game counts it as 0, but it is not a choice of 0.
Built from each run's game by round (``game.py``, over the world's table rows)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from statistics import median

from maai.domain.study import Reference
from maai.domain.world.config import WorldConfig
from maai.projections.charts import Line, Series, grouped_bars, line_chart, nice_ticks, num
from maai.projections.markup import Markup, figures, join, paragraph, table
from maai.projections.report import Section
from maai.projections.statistics import MeanInterval, mean_interval
from maai.projections.study_report import StudyRun, condition_axis
from maai.projections.world.game import GameRound, game_rounds


@dataclass(frozen=True)
class GameRun:
    """One run that played the game: its place in the study and its rounds so far."""

    run: StudyRun
    config: WorldConfig
    rounds: list[GameRound]
    condition: str  # as the tables name it: the factor's value, or every factor's


@dataclass
class Group:
    """Runs (or some players of runs) pooled under one label: a condition, or a priming."""

    label: str  # short, for a plot's legend
    words: str  # in full, for the table
    shares: dict[int, list[float]] = field(default_factory=dict)  # round -> one value a run
    overall: list[float] = field(default_factory=list)  # one value a run, all rounds
    contributions: int = 0  # player-rounds with an amount
    missing: int = 0


def pool(group: Group, game: GameRun, chosen: Collection[str]) -> None:
    """Add one run to ``group``: per round the mean share of the ``chosen`` players, over
    every round the mean of all their shares (each left out where nothing was given)."""
    given: list[float] = []
    for r in game.rounds:
        players = [p for p in r.players if p.player in chosen and p.contributed]
        group.missing += sum(1 for p in players if p.missing)
        shares = [p.share for p in players if p.share is not None]
        group.contributions += len(shares)
        if shares:
            group.shares.setdefault(r.number, []).append(sum(shares) / len(shares))
            given += shares
    if given:
        group.overall.append(sum(given) / len(given))


def game_runs(runs: Sequence[StudyRun]) -> tuple[list[GameRun], list[StudyRun]]:
    """The runs that play the game (with their rounds), and those that do not."""
    games, others = [], []
    # One factor: its values name the conditions; several: each cell's factor values.
    one_factor = len({factor for run in runs for factor in run.factors}) == 1
    for run in runs:
        history, config = run.history, run.history.config
        if history.experiment is None or not isinstance(config, WorldConfig) or not config.game:
            others.append(run)
            continue
        rows = history.experiment.views().table_rows(history)
        condition = run.short if one_factor else run.condition
        games.append(GameRun(run, config, game_rounds(history, rows), condition))
    return games, others


def by_condition(games: Sequence[GameRun]) -> list[Group]:
    groups: dict[str, Group] = {}
    for game in games:
        run = game.run
        group = groups.setdefault(game.condition, Group(run.short, game.condition))
        pool(group, game, game.config.players)
    return list(groups.values())


def by_priming(games: Sequence[GameRun]) -> list[Group]:
    """One group per priming text the players read (numbered in order of appearance), and
    one of the players who read none; empty when no player was primed."""
    texts: list[str] = []
    for game in games:
        for player in game.config.players:
            text = game.config.agent(player).priming
            if text and text not in texts:
                texts.append(text)
    if not texts:
        return []
    groups = [Group(f"priming {i}", text) for i, text in enumerate(texts, 1)]
    groups.append(Group("no priming", "(none)"))
    for game in games:
        primed = {p: game.config.agent(p).priming for p in game.config.players}
        for group, text in zip(groups, [*texts, ""], strict=True):
            chosen = [p for p, own in primed.items() if own == text]
            if chosen:
                pool(group, game, chosen)
    return [g for g in groups if g.contributions or g.missing]


def study_report(runs: Sequence[StudyRun], reference: Reference | None) -> list[Section]:
    games, others = game_runs(runs)
    axis = condition_axis(runs)
    sections = []
    if games:
        sections.append(contributions_section(by_condition(games), axis))
        primed = by_priming(games)
        if primed:
            sections.append(priming_section(primed))
        sections.append(payoffs_section(games, axis))
    sections.append(runs_section(games, others, axis))
    return sections


def _interval(result: MeanInterval) -> str:
    if result.low is None or result.high is None:
        return f"{result.mean:.2f} ({result.note})"
    return f"{result.mean:.2f} [{result.low:.2f}, {result.high:.2f}]"


def _share_plot(name: str, title: str, groups: list[Group]) -> str:
    """Mean share by round, a line per group, the 95% intervals drawn within 0-1 (a share
    cannot leave it; the table gives them unclipped)."""
    lines = []
    for group in groups:
        points, intervals = [], []
        for number, values in sorted(group.shares.items()):
            result = mean_interval(values)
            points.append((float(number), result.mean))
            if result.low is not None and result.high is not None:
                intervals.append((float(number), max(result.low, 0.0), min(result.high, 1.0)))
        counts = [(float(n), len(values)) for n, values in sorted(group.shares.items())]
        lines.append(Line(group.label, points, intervals=intervals, counts=counts))
    rounds = sorted({n for group in groups for n in group.shares})
    return line_chart(
        name,
        title,
        [line for line in lines if line.points],
        x_label="round",
        y_label="mean contribution (share of endowment)",
        y_range=(0, 1),
        x_ticks=[(float(n), str(n)) for n in rounds],
        dodge=0.02,
    )


def _share_table(groups: list[Group], first: str, *, short: bool = False) -> Markup:
    """One row per group: the mean share [95% CI] and n (runs) in each round and over all
    rounds, then the contributions counted and the missing ones left out. ``short``: name
    the groups by their label (a key table gives the words)."""
    rounds = sorted({n for group in groups for n in group.shares})

    def cell(values: list[float] | None) -> str:
        return f"{_interval(mean_interval(values))}, n={len(values)}" if values else "—"

    rows = [
        (
            group.label if short else group.words,
            *(cell(group.shares.get(n)) for n in rounds),
            cell(group.overall),
            group.contributions,
            group.missing,
        )
        for group in groups
    ]
    columns = [first, *(f"round {n}" for n in rounds), "all rounds"]
    return table([*columns, "contributions", "missing (left out)"], rows)


SHARE_NOTE = (
    "Share: a contribution over the player's endowment (0: kept everything, 1: gave it all). "
    "Each run counts once per round: the mean share of its players (a missing contribution "
    "left out); a cell's mean and its 95% interval (Student's t) are over those runs, and n "
    "counts them (all rounds: each run's mean over its rounds). The plot draws the intervals "
    "within 0-1; the table gives them in full. Contributions: player-rounds with an amount."
)


def contributions_section(groups: list[Group], axis: str) -> Section:
    plot = _share_plot(
        "contributions-by-condition",
        "Mean contribution by round and condition (95% t intervals)",
        groups,
    )
    return Section(
        "Contributions by round and condition",
        join([figures(plot), _share_table(groups, axis), paragraph(SHARE_NOTE, "note")]),
    )


def priming_section(groups: list[Group]) -> Section:
    plot = _share_plot(
        "contributions-by-priming",
        "Mean contribution by round and the players' priming (95% t intervals)",
        groups,
    )
    key = table(["label", "what the players read"], [(g.label, g.words) for g in groups])
    note = paragraph(
        "Players are grouped by the priming added to their private bio (docs/world.md §1); "
        "a run counts in each group some of its players belong to, with the mean share of "
        "those players. " + SHARE_NOTE,
        "note",
    )
    return Section(
        "Contributions by priming",
        join([figures(plot), key, _share_table(groups, "priming", short=True), note]),
    )


def payoffs_section(games: Sequence[GameRun], axis: str) -> Section:
    """The distribution of the payoffs computed by code (every player, every round with an
    outcome) by condition: a histogram of shares, and a summary per condition."""
    payoffs: dict[str, list[float]] = {}
    labels: dict[str, str] = {}
    run_means: dict[str, list[float]] = {}
    for game in games:
        words = game.condition
        labels.setdefault(words, game.run.short)
        own = [p.payoff for r in game.rounds for p in r.players if p.payoff is not None]
        payoffs.setdefault(words, []).extend(own)
        if own:
            run_means.setdefault(words, []).append(sum(own) / len(own))
    every = [v for values in payoffs.values() for v in values]
    if not every:
        return Section("Payoffs by condition", paragraph("No round has an outcome yet.", "no-data"))
    edges = nice_ticks(min(every), max(every), count=8)
    bins = list(zip(edges, edges[1:], strict=False))
    groups = [f"{num(low)}–{num(high)}" for low, high in bins]

    def shares(values: list[float]) -> list[float | None]:
        counts = [0] * len(bins)
        for v in values:
            i = next((i for i, (_, high) in enumerate(bins) if v < high), len(bins) - 1)
            counts[i] += 1
        return [c / len(values) if values else None for c in counts]

    plot = grouped_bars(
        "payoffs-by-condition",
        "Payoffs by condition: share of player-rounds in each range",
        groups,
        [
            Series(f"{labels[w]} (n = {len(values)})", shares(values))
            for w, values in payoffs.items()
        ],
        x_label="payoff (points; a range holds its lower end, the last one both ends)",
        y_label="share of player-rounds",
        y_max=1,
    )
    rows = [
        (
            words,
            len(run_means.get(words, [])),
            len(values),
            f"{min(values):.2f}",
            f"{median(values):.2f}",
            _interval(mean_interval(run_means[words])),
            f"{max(values):.2f}",
        )
        for words, values in payoffs.items()
        if values
    ]
    columns = [axis, "runs (n)", "player-rounds", "min", "median", "mean [95% CI]", "max"]
    note = paragraph(
        "Payoffs as computed by code (endowment − contribution + multiplier × total / players; "
        "docs/world.md §5), every player in every round with an outcome. Min, median, max: over "
        "the player-rounds; mean: each run's mean payoff, averaged over the runs with a 95% "
        "Student's t interval (n counts runs).",
        "note",
    )
    return Section(
        "Payoffs by condition",
        join([figures(plot), table(columns, rows), note]),
    )


def runs_section(games: Sequence[GameRun], others: Sequence[StudyRun], axis: str) -> Section:
    """Per condition: the runs, how far their games got, the announcements' checks; then
    the runs without a game, by id."""
    columns = ["runs", "rounds with an outcome", "announced", "wrong", "missing"]
    counts: dict[str, Counter[str]] = {}
    for game in games:
        count = counts.setdefault(game.condition, Counter())
        count["runs"] += 1
        count["rounds with an outcome"] += sum(1 for r in game.rounds if r.total is not None)
        count["announced"] += sum(1 for r in game.rounds if r.announcement is not None)
        count["wrong"] += sum(1 for r in game.rounds if r.wrong_announcement)
        count["missing"] += sum(len(r.missing) for r in game.rounds)
    rows = [(words, *(count[c] for c in columns)) for words, count in counts.items()]
    parts = []
    if rows:
        parts.append(table([axis, *columns], rows))
        parts.append(
            paragraph(
                "Wrong: announcements the moderator made that differ from the computed payoffs "
                "(the computed ones stand). Missing: contributions with no valid amount within "
                "the attempts (counted as 0 by the game, left out of the means here).",
                "note",
            )
        )
    if others:
        listed = ", ".join(run.history.run_id for run in others)
        parts.append(paragraph(f"Runs without a game (a free world, not counted above): {listed}."))
    return Section("Runs and announcements", join(parts))
