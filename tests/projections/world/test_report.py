"""The world's sections of ``maai report`` (docs/projections.md, "Reports"; docs/world.md §8).

What a researcher relies on: the contributions, payoffs and model calls the page shows are
the run's (recomputed here from the recorded events with the rule of docs/world.md §5, not
with the report's code), a wrong announcement and a missing contribution are flagged where
they cannot be missed (and a right one is not), every action is in the log under its tick
with its witnesses, and a free world gets the log and plans without the game's sections."""

from __future__ import annotations

import html
import re
from collections import Counter
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

from maai.domain.events import Event, ModelCallRequested
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    PlanChanged,
    RoundStarted,
)
from maai.projections.history import History, history_from_events
from maai.projections.report import run_report
from tests.projections.hostile import HOSTILE
from tests.projections.test_study_report import headings, plot_names
from tests.projections.world.recording import golden_history
from tests.support.world_driver import drive, load

GAME_SECTIONS = [
    "The run",
    "The world and how the run went",
    "The public-goods game",
    "Model calls per tick",
    "Event log",
    "Plans",
]


@pytest.fixture(scope="module")
def golden() -> History:
    """Two players and a moderator, one round; the moderator announces a wrong payoff."""
    return golden_history()


def events_of(history: History) -> list[Event]:
    return [entry.event for entry in history.entries]


def expected_payoffs(history: History) -> dict[tuple[int, str], str]:
    """docs/world.md §5 by hand: e − c + m·Σc/N, half-even to cents, a missing c as 0."""
    config = history.config
    assert isinstance(config, WorldConfig) and config.game is not None
    given: dict[int, dict[str, int]] = {}
    for _, e in history.of(ContributionRecorded):
        given.setdefault(e.round, {})[e.player] = e.amount or 0
    payoffs = {}
    m, n = Decimal(str(config.game.multiplier)), len(config.players)
    for number, amounts in given.items():
        if sorted(amounts) != sorted(config.players):
            continue  # the round is not complete: no outcome yet
        pool = m * sum(amounts.values()) / n
        for player, c in amounts.items():
            exact = Decimal(config.game.endowment - c) + pool
            payoffs[(number, player)] = f"{exact.quantize(Decimal('0.01'), ROUND_HALF_EVEN)}"
    return payoffs


def words(fragment: str) -> str:
    """What a reader sees of a piece of the page: the text, tags and spacing gone."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)))


def section(page: str, title: str) -> str:
    start = page.index(f"<h2>{title}</h2>")
    end = page.find("<section", start)
    return page[start : end if end > 0 else len(page)]


def mark_titles(page: str, plot: str) -> list[str]:
    svg = re.search(rf'<svg[^>]*data-plot="{plot}".*?</svg>', page, re.S)
    assert svg, plot
    return [html.unescape(t) for t in re.findall(r'class="mark"[^>]*><title>([^<]*)', svg[0])]


def test_a_game_run_has_its_sections_and_plots(golden: History) -> None:
    page = run_report(golden)
    assert headings(page) == GAME_SECTIONS
    assert plot_names(page) == ["contributions", "payoffs", "calls-per-tick"]


def test_contributions_and_payoffs_are_the_runs(golden: History) -> None:
    page = run_report(golden)
    text = words(section(page, "The public-goods game"))
    payoffs = expected_payoffs(golden)
    assert payoffs  # the golden run completes its round
    turns = {(e.round, p): i + 1 for _, e in golden.of(RoundStarted) for i, p in enumerate(e.order)}
    for _, e in golden.of(ContributionRecorded):
        payoff = payoffs[(e.round, e.player)]
        assert f"{e.round} {turns[(e.round, e.player)]} {e.player} {e.amount} 20 {payoff}" in text
    # The plots draw the same numbers: a bar per contribution and per payoff.
    assert sorted(mark_titles(page, "contributions")) == sorted(
        f"round {e.round}, {e.player}: {e.amount}"
        for _, e in golden.of(ContributionRecorded)
        if e.amount  # a zero draws no bar (its value is written at the axis)
    )
    assert sorted(mark_titles(page, "payoffs")) == sorted(
        f"round {r}, {p}: {float(v):g}" for (r, p), v in payoffs.items()
    )
    # The endowment is drawn across both plots as the reference a contribution is out of.
    assert page.count('class="level"') == 2 and "endowment 20" in text


def test_a_wrong_announcement_is_flagged_beside_the_computed_payoff(golden: History) -> None:
    (checked,) = [e for _, e in golden.of(AnnouncementChecked)]
    assert not checked.matches
    wrong = [p for p, v in checked.announced.items() if v != checked.computed[p]]
    page = run_report(golden)
    game = section(page, "The public-goods game")
    flagged = [html.unescape(f) for f in re.findall(r'<span class="flag">([^<]*)</span>', game)]
    assert any("announcement was wrong" in f and checked.differences[0] in f for f in flagged)
    for player in wrong:
        said, computed = checked.announced[player], expected_payoffs(golden)[(1, player)]
        assert f"{said:.2f} (computed {computed})" in flagged
    right = [p for p in checked.announced if p not in wrong]
    assert right and not any(p in f for p in right for f in flagged)
    # The overview counts it, and the event log flags the tick it was made in.
    assert re.search(r"wrong announcements</dt><dd><span class=\"flag\">1<", page)
    log = section(page, "Event log")
    assert f"Tick {checked.tick} · " in log
    assert re.search(
        rf"<summary>Tick {checked.tick} [^\n]*?<span class=\"flag\">WRONG announcement", log
    )


def test_a_right_announcement_is_not_flagged() -> None:
    history = history_from_events(drive(load("world_pgg.yaml", seed=42)).events, "right")
    assert [e.matches for _, e in history.of(AnnouncementChecked)] == [True]
    page = run_report(history)
    assert 'class="flag"' not in section(page, "The public-goods game")
    assert "wrong announcements</dt><dd>0<" in page and "matches" in words(page)


def test_a_missing_contribution_is_flagged_and_counts_zero() -> None:
    # One attempt at an action: the simulated player's wrong first amount stays missing.
    run = drive(load("world_pgg.yaml", seed=41, attempts={"action": 1}))
    history = history_from_events(run.events, "missing")
    missing = [e for _, e in history.of(ContributionRecorded) if e.amount is None]
    assert [e.player for e in missing] == ["Bob"]
    page = run_report(history)
    game = section(page, "The public-goods game")
    assert "Round 1: Bob&#x27;s contribution is missing" in game
    assert '<span class="flag">missing (counts 0)</span>' in game
    assert re.search(r"missing contributions</dt><dd><span class=\"flag\">1<", page)
    # His payoff is computed with 0 for him (docs/world.md §5).
    payoff = expected_payoffs(history)[(1, "Bob")]
    assert re.search(rf"1 \d Bob missing \(counts 0\) 20 {payoff}", words(game))
    tick = missing[0].tick
    log = section(page, "Event log")
    assert re.search(rf"<summary>Tick {tick} [^\n]*?Bob&#x27;s contribution missing", log)
    # The moderator witnessed it as a missing contribution and announced the round.
    assert "not yet announced" not in words(game)
    assert [e.round for _, e in history.of(AnnouncementChecked)] == [1]


def test_model_calls_per_tick_are_the_recorded_calls(golden: History) -> None:
    calls = {
        e.request.address: e.request.purpose for _, e in golden.of(ModelCallRequested)
    }  # a call requested again after a resume counts once
    counted = Counter(
        (int(re.match(r"w/t(\d+)/", a)[1]), purpose)  # type: ignore[index]
        for a, purpose in calls.items()
    )
    page = run_report(golden)
    assert sorted(mark_titles(page, "calls-per-tick")) == sorted(
        f"{tick}, {purpose}: {n}" for (tick, purpose), n in counted.items()
    )
    assert f"model calls</dt><dd>{len(calls)}<" in page


def test_every_action_is_logged_under_its_tick_with_its_witnesses(golden: History) -> None:
    log = section(run_report(golden), "Event log")
    blocks = re.findall(r"<details><summary>Tick (\d+) (.*?)</details>", log, re.S)
    actions = [e for _, e in golden.of(ActionResolved)]
    assert [int(t) for t, _ in blocks] == sorted({e.tick for e in actions})
    body = {int(t): words(b) for t, b in blocks}
    for e in actions:
        witnesses = ", ".join(e.witnesses)
        row = f"{e.position + 1} {e.location} {e.agent} {e.description} {witnesses}"
        assert row in body[e.tick], row
    refused = Counter(e.tick for e in actions if e.outcome == "refused")
    for tick, n in refused.items():
        assert re.search(rf"<summary>Tick {tick} .*?<span class=\"flag\">{n} refused<", log)


def test_each_agents_plans_are_listed_in_order(golden: History) -> None:
    plans = section(run_report(golden), "Plans")
    for name in golden.agent_names:
        own = [e for _, e in golden.of(PlanChanged) if e.agent == name]
        block = re.search(rf"<summary>{name}: {len(own)} plan changes.*?</details>", plans, re.S)
        assert block, name
        rows = words(block[0])
        # Each change as a row (tick, status, location, plan, stop condition, max ticks), in
        # the order they were recorded.
        found = [
            rows.index(f"{e.tick} {e.status} {e.location} {e.description} {e.stop_condition}")
            for e in own
        ]
        assert found == sorted(found), name


def test_a_free_world_has_the_log_and_plans_but_no_game() -> None:
    history = history_from_events(drive(load("world_free.yaml")).events, "free")
    page = run_report(history)
    assert headings(page) == [
        "The run",
        "The world and how the run went",
        "Model calls per tick",
        "Event log",
        "Plans",
    ]
    assert plot_names(page) == ["calls-per-tick"]
    assert "game</dt><dd>none (a free world)<" in page
    # Past the run's facts (whose recorded config names every key): nothing of the game.
    text = words(page[page.index("<h2>The world and how the run went</h2>") :])
    assert "contribut" not in text and "endowment" not in text and "announce" not in text
    ticks = {e.tick for _, e in history.of(ActionResolved)}
    assert len(re.findall(r"<summary>Tick \d+ ", page)) == len(ticks)


def test_what_an_agent_said_or_planned_is_text_not_markup(golden: History) -> None:
    events = events_of(golden)
    spoke = next(
        i for i, e in enumerate(events) if isinstance(e, ActionResolved) and e.kind == "speak"
    )
    planned = next(i for i, e in enumerate(events) if isinstance(e, PlanChanged))
    events[spoke] = events[spoke].model_copy(update={"description": HOSTILE})
    events[planned] = events[planned].model_copy(update={"description": HOSTILE})
    page = run_report(history_from_events(events, "planted"))
    assert page.count(html.escape(HOSTILE)) >= 2
    assert "<script" not in page and "<img" not in page
