"""``maai study report`` opened in a real browser (Debian's headless chromium through
Playwright, as tests/browser/test_report_browser.py): a small simulated study of each
experiment is run on a temporary ledger and written; the page must load from the file alone
(no other request, no console error), name the study, draw every plot with a visible size
and at least one mark, and show the markup planted in a factor value as text. Full-page
screenshots (as first seen, and with every collapsed block opened) are kept in
``$MAAI_TEST_ARTIFACTS`` (default ``test-artifacts/``) to look at."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_report_browser import CHROMIUM, Visit, artifacts, sync_api
from tests.projections.studies import (
    COLLABORATION,
    FROHLICH,
    HOSTILE_COMPANY,
    WORLD,
    run_study,
    write_report,
)

STUDIES = {"collaboration": COLLABORATION, "frohlich": FROHLICH, "world": WORLD}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Experiment -> the study report of its small study (written from the study file)."""
    written = {}
    for name, study in STUDIES.items():
        folder = tmp_path_factory.mktemp(name)
        db, path = run_study(folder, study)
        page = folder / "study.html"
        result = write_report(db, str(path), page)
        assert result.exit_code == 0, result.output
        written[name] = page
    return written


@pytest.fixture(scope="module")
def browser(pages: dict[str, Path]) -> Iterator[Any]:
    # After the studies ran: Playwright's sync API keeps an event loop in this thread.
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], headless=True
        )
        yield launched
        launched.close()


@pytest.mark.parametrize(
    ("experiment", "plots"),
    [
        (
            "collaboration",
            [
                "collaboration-rate",
                "mismatch-rate",
                "beliefs-by-condition",
                "compare-agents.u-value-joint-project",
                "compare-agents.u-value-mismatch",
            ],
        ),
        (
            "frohlich",
            [
                "agreement-rate",
                "agreed-principle",
                "rounds-to-consensus",
                "payoffs-by-condition",
                "target-adoption",
                "compare-manipulator-agreement",
                "compare-manipulator-phase-2-payoff",
            ],
        ),
        (
            "world",
            [
                "contributions-by-condition",
                "contributions-by-priming",
                "payoffs-by-condition",
                "compare-game.multiplier-contribution",
            ],
        ),
    ],
)
def test_the_study_report_opens_offline_with_every_plot_drawn(
    browser: Any, pages: dict[str, Path], experiment: str, plots: list[str]
) -> None:
    visit = Visit(browser, pages[experiment])
    name = STUDIES[experiment]["study"]

    assert visit.errors == [] and visit.failed == []
    assert visit.requests == [visit.url]  # the file itself, nothing else
    assert name in visit.page.title() and name in visit.page.inner_text("h1")
    drawn = visit.plots()
    assert [plot["name"] for plot in drawn] == plots
    for plot in drawn:
        assert plot["width"] > 100 and plot["height"] > 100, plot
        assert plot["marks"] >= 1 and plot["title"], plot
    for screenshot in visit.screenshots(f"study-report-{experiment}"):
        assert screenshot.stat().st_size > 10_000


def test_markup_in_a_factor_value_shows_as_text_and_never_runs(
    browser: Any, pages: dict[str, Path]
) -> None:
    visit = Visit(browser, pages["collaboration"])
    visit.page.eval_on_selector_all("details", "all => all.forEach(d => d.open = true)")

    assert visit.page.evaluate("window.__pwned") is None
    assert visit.page.locator("main script, main b").count() == 0
    assert HOSTILE_COMPANY in visit.page.inner_text("main")


def test_the_world_study_report_shows_contributions_by_condition_and_priming(
    browser: Any, pages: dict[str, Path]
) -> None:
    visit = Visit(browser, pages["world"])
    page = visit.page
    for heading in ("Contributions by round and condition", "Contributions by priming"):
        assert page.locator("h2", has_text=heading).is_visible()
    # One line per condition, one point per round, an error bar at each point with n > 1.
    plot = page.locator("svg[data-plot=contributions-by-condition]")
    assert plot.locator("g.line").count() == 2
    assert plot.locator(".mark").count() == 4 and plot.locator("g.interval").count() == 4
    assert plot.get_by_text("n=2").count() == 4  # each point's n beside it
    table = page.locator("section", has=page.locator("h2", has_text="by round and condition"))
    assert table.locator("th", has_text="round 2").first.is_visible()
    cell = re.compile(r"\d\.\d\d \[-?\d\.\d\d, \d\.\d\d\], n=2")  # mean [95% CI], n
    assert table.get_by_text(cell).first.is_visible()
    plot.screenshot(path=str(artifacts() / "study-report-world-contributions.png"))
