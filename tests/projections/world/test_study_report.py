"""The world's sections of ``maai study report`` (docs/studies.md, "Report"; docs/world.md
§5), on a small simulated study run by ``maai study run`` (tests/projections/studies.py).

What a researcher relies on: the mean contributions by round and condition and by priming,
with their n and 95% intervals, and the payoffs' spread are the runs' own (recomputed here
from each run's recorded contributions and outcomes, with scipy's t quantile, not with the
report's code), and a run without a game is named as such instead of counting as zero."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from scipy.stats import t

from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    AnnouncementChecked,
    ContributionRecorded,
    OutcomeComputed,
)
from maai.projections.history import History, history_from_events
from maai.projections.study_report import StudyRun
from maai.projections.world import VIEWS
from tests.projections.studies import WORLD, WORLD_FREE, run_study
from tests.projections.test_report import parsed
from tests.projections.test_study_report import (
    headings,
    histories,
    page_of,
    plot_names,
    visible_text,
)
from tests.support.world_driver import drive, load


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return run_study(tmp_path_factory.mktemp("world"), WORLD)


@pytest.fixture(scope="module")
def page(world: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> str:
    return page_of(world, tmp_path_factory.mktemp("page"))


def multiplier(history: History) -> str:
    config = history.config
    assert isinstance(config, WorldConfig) and config.game is not None
    return f"{config.game.multiplier}"


def shares_by_round(history: History, players: set[str]) -> dict[int, list[float]]:
    """Each round's contributions of ``players`` over their endowments, missing ones left
    out (docs/world.md §5: a missing contribution is counted 0 but was never given)."""
    found: dict[int, list[float]] = {}
    for _, e in history.of(ContributionRecorded):
        if e.player in players and e.amount is not None:
            found.setdefault(e.round, []).append(e.amount / e.endowment)
    return found


def cell(values: list[float]) -> str:
    """Mean, Student's t 95% interval and n, as the page writes them."""
    mean = sum(values) / len(values)
    half = t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return f"{mean:.2f} [{mean - half:.2f}, {mean + half:.2f}], n={len(values)}"


def row_of(groups: dict[str, list[dict[int, list[float]]]], name: str) -> str:
    """The table row of a group of runs: per round, each run's mean share; over all
    rounds, each run's mean of all its shares."""
    runs = groups[name]
    rounds = sorted({n for run in runs for n in run})
    per_round = [cell([sum(run[n]) / len(run[n]) for run in runs if run.get(n)]) for n in rounds]
    overall = cell([sum(sum(run.values(), [])) / len(sum(run.values(), [])) for run in runs])
    given = sum(len(shares) for run in runs for shares in run.values())
    return " ".join([name, *per_round, overall, str(given)])


def test_the_page_names_nothing_outside_itself_and_repeats_byte_for_byte(
    world: tuple[str, Path], page: str, tmp_path: Path
) -> None:
    found = parsed(page)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(found.tags)
    assert all(value.startswith("#") for _, name, value in found.attributes if name == "href")
    assert "http:" not in page and "https:" not in page
    assert page_of(world, tmp_path) == page


def test_the_sections_and_plots_of_a_game_study(page: str) -> None:
    assert headings(page) == [
        "The study",
        "Contributions by round and condition",
        "Contributions by priming",
        "Payoffs by condition",
        "Runs and announcements",
        "Comparisons between conditions",
    ]
    assert plot_names(page) == [
        "contributions-by-condition",
        "contributions-by-priming",
        "payoffs-by-condition",
        "compare-game.multiplier-contribution",
    ]


def test_mean_contributions_by_round_and_condition_are_the_runs(
    world: tuple[str, Path], page: str
) -> None:
    runs = histories(world[0], WORLD["study"])
    assert len(runs) == 4
    by_condition: dict[str, list[dict[int, list[float]]]] = {}
    for history in runs:
        config = history.config
        assert isinstance(config, WorldConfig)
        by_condition.setdefault(multiplier(history), []).append(
            shares_by_round(history, set(config.players))
        )
    text = visible_text(page)
    assert set(by_condition) == {"1.2", "2.0"}
    for name in by_condition:
        assert row_of(by_condition, name) + " 0" in text  # 0 missing


def test_mean_contributions_by_priming_are_the_players(world: tuple[str, Path], page: str) -> None:
    runs = histories(world[0], WORLD["study"])
    texts: list[str] = []
    by_priming: dict[str, list[dict[int, list[float]]]] = {}
    for history in runs:
        config = history.config
        assert isinstance(config, WorldConfig)
        primed: dict[str, set[str]] = {}
        for player in config.players:
            primed.setdefault(config.agent(player).priming, set()).add(player)
        for text, players in primed.items():
            if text not in texts:
                texts.append(text)
            label = f"priming {texts.index(text) + 1}"
            by_priming.setdefault(label, []).append(shares_by_round(history, players))
    shown = visible_text(page)
    assert len(texts) == 2  # the sharing story and the keeping story
    for i, text in enumerate(texts, 1):
        assert f"priming {i} {text}" in shown  # the key from label to story
        assert row_of(by_priming, f"priming {i}") + " 0" in shown


def test_payoffs_and_announcements_by_condition_are_the_runs(
    world: tuple[str, Path], page: str
) -> None:
    text = visible_text(page)
    runs = histories(world[0], WORLD["study"])
    for name in ("1.2", "2.0"):
        own = [h for h in runs if multiplier(h) == name]
        payoffs = sorted(
            v for h in own for _, e in h.of(OutcomeComputed) for v in e.payoffs.values()
        )
        means = []
        for h in own:
            mine = [v for _, e in h.of(OutcomeComputed) for v in e.payoffs.values()]
            means.append(sum(mine) / len(mine))
        mean = cell(means).rsplit(",", 1)[0]
        low, middle, high = payoffs[0], statistics.median(payoffs), payoffs[-1]
        summary = f"{name} {len(own)} {len(payoffs)} {low:.2f} {middle:.2f} {mean} {high:.2f}"
        assert summary in text
        outcomes = sum(len(h.of(OutcomeComputed)) for h in own)
        checks = [e for h in own for _, e in h.of(AnnouncementChecked)]
        wrong = sum(1 for e in checks if not e.matches)
        assert f"{name} {len(own)} {outcomes} {len(checks)} {wrong} 0" in text


def test_a_study_of_a_free_world_lists_its_runs_as_without_a_game(tmp_path: Path) -> None:
    free = run_study(tmp_path, WORLD_FREE)
    page = page_of(free, tmp_path)
    assert headings(page) == [
        "The study",
        "Runs and announcements",
        "Comparisons between conditions",
    ]
    assert plot_names(page) == []
    assert "One condition: nothing to compare." in visible_text(page)
    (history,) = histories(free[0], WORLD_FREE["study"])
    assert f"Runs without a game (a free world, not counted above): {history.run_id}." in (
        visible_text(page)
    )


def test_a_missing_contribution_is_counted_apart_not_as_a_zero() -> None:
    # One attempt at an action: Bob's wrong first amount stays missing (seed 41).
    events = drive(load("world_pgg.yaml", seed=41, attempts={"action": 1})).events
    history = history_from_events(events, "missing")
    given = {e.player: e.amount for _, e in history.of(ContributionRecorded)}
    assert given["Bob"] is None and len(given) == 4
    run = StudyRun(history, 1, {}, "one cell", "one cell")
    text = visible_text("<main>" + "".join(s.body for s in VIEWS.study_report([run], None)))
    # The three given contributions make the mean; Bob's is counted as missing, not as 0.
    shares = [a / 20 for a in given.values() if a is not None]
    mean = f"{sum(shares) / len(shares):.2f} (one value: no interval), n=1"
    assert f"one cell {mean} {mean} 3 1" in text
