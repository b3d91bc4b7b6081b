"""``maai report`` opened in a real browser: Debian's chromium, headless, driven by
Playwright for Python (no downloaded browser: ``executable_path`` is the system's chromium).

A simulated run of each experiment is made by ``maai run`` on a temporary ledger and written
by ``maai report``; the page must load from the file alone (no request beyond it, no console
error), show its title and run id, and draw every plot with a visible size and at least one
mark. Full-page screenshots of each (as first seen, and with every collapsed block opened)
are kept in ``$MAAI_TEST_ARTIFACTS`` (default ``test-artifacts/`` at the repository root)
to look at.
Without chromium or Playwright the tests skip, saying which is missing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore
from maai.projections.report import run_report
from tests.projections.frohlich.recording import golden_history
from tests.projections.hostile import HOSTILE, planted

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no chromium on PATH: install Debian's (apt-get install chromium) to run the browser "
        "tests of maai report",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
)

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def artifacts() -> Path:
    folder = Path(os.environ.get("MAAI_TEST_ARTIFACTS") or REPO / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


CONFIGS = ("default", "collaboration", "world", "world_free")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, Path]]:
    """Config name -> (run id, report file) of a simulated run of each experiment."""
    return {name: reported_run(name, tmp_path_factory.mktemp(name)) for name in CONFIGS}


@pytest.fixture(scope="module")
def browser(reports: dict[str, tuple[str, Path]]) -> Iterator[Any]:
    # After the runs: Playwright's sync API keeps an event loop running in this thread, and
    # the engine (asyncio.run) cannot start inside it.
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], headless=True
        )
        yield launched
        launched.close()


def reported_run(config: str, folder: Path) -> tuple[str, Path]:
    """Run a packaged config with the simulated participants; its report's run id and path."""
    db = str(folder / "ledger.db")
    made = runner.invoke(app, ["run", config, "--db", db])
    assert made.exit_code == 0, made.output
    with EventStore.open(db) as store:
        (run,) = store.list_runs()
    page = folder / "report.html"
    written = runner.invoke(app, ["report", run.run_id, "--db", db, "-o", str(page)])
    assert written.exit_code == 0, written.output
    return run.run_id, page


class Visit:
    """A page opened from its file, with every console error, page error and request seen."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.url = path.as_uri()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.failed: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.failed.append(r.url))
        self.page.goto(self.url, wait_until="load")

    def plots(self) -> list[dict[str, Any]]:
        return self.page.eval_on_selector_all(
            "svg[data-plot]",
            """svgs => svgs.map(svg => {
                const box = svg.getBoundingClientRect();
                const marks = [...svg.querySelectorAll('.mark')].filter(m => {
                    const b = m.getBoundingClientRect(); return b.width > 0 && b.height > 0; });
                return {name: svg.dataset.plot, width: box.width, height: box.height,
                        marks: marks.length, title: svg.querySelector('title')?.textContent};
            })""",
        )

    def screenshots(self, name: str) -> list[Path]:
        """The page as a reader first sees it, then with every collapsed block opened."""
        paths = [artifacts() / f"{name}.png", artifacts() / f"{name}-expanded.png"]
        self.page.screenshot(path=str(paths[0]), full_page=True)
        self.page.eval_on_selector_all("details", "all => all.forEach(d => d.open = true)")
        self.page.screenshot(path=str(paths[1]), full_page=True)
        return paths


@pytest.mark.parametrize(
    ("config", "plots"),
    [
        ("default", ["first-places", "phase1-choices", "payoffs", "vote-timeline"]),
        ("collaboration", ["beliefs", "predictions", "points"]),
        ("world", ["contributions", "payoffs", "calls-per-tick"]),
        ("world_free", ["calls-per-tick"]),
    ],
)
def test_the_report_of_a_run_opens_offline_with_every_plot_drawn(
    browser: Any, reports: dict[str, tuple[str, Path]], config: str, plots: list[str]
) -> None:
    run_id, path = reports[config]
    visit = Visit(browser, path)

    assert visit.errors == [] and visit.failed == []
    assert visit.requests == [visit.url]  # the file itself, nothing else
    assert run_id in visit.page.title()
    assert run_id in visit.page.inner_text("h1")
    assert run_id in visit.page.inner_text("section dl.facts")
    drawn = visit.plots()
    assert [plot["name"] for plot in drawn] == plots
    for plot in drawn:
        assert plot["width"] > 100 and plot["height"] > 100, plot
        assert plot["marks"] >= 1 and plot["title"], plot
    for screenshot in visit.screenshots(f"report-{config}"):
        assert screenshot.stat().st_size > 10_000


def test_markup_a_participant_wrote_shows_as_text_and_never_runs(
    browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "planted.html"
    path.write_text(run_report(planted(golden_history())), encoding="utf-8")
    visit = Visit(browser, path)

    assert visit.page.evaluate("window.__pwned") is None
    assert visit.requests == [visit.url]  # the planted image was never fetched
    assert visit.page.locator("img, script").count() == 0
    assert HOSTILE in visit.page.inner_text("main")


def test_the_world_report_flags_the_wrong_announcement_and_folds_the_log(
    browser: Any, reports: dict[str, tuple[str, Path]]
) -> None:
    """world_pgg.yaml's moderator announces a wrong payoff (docs/world.md §7): the reader
    sees it in red above the plots; the event log is one closed block per tick, and opening
    one shows its actions with their witnesses."""
    _, path = reports["world"]
    visit = Visit(browser, path)
    page = visit.page

    warning = page.locator("section .flag", has_text="announcement was wrong").first
    assert warning.is_visible()
    assert warning.evaluate("e => getComputedStyle(e).color") == "rgb(164, 0, 0)"
    plot = page.locator("svg[data-plot=contributions]")
    title = plot.locator("text", has_text="Contribution per player and round")
    assert title.count() == 1 and title.is_visible()  # drawn, not only the hover <title>
    assert plot.locator("g.level").count() == 1  # the endowment, across the bars

    ticks = page.locator("section details", has=page.locator("summary", has_text="Tick "))
    assert ticks.count() >= 10
    first = ticks.first
    assert not first.locator("table").is_visible()  # closed until the reader opens it
    first.locator("summary").click()
    assert first.locator("table").is_visible()
    assert first.locator("th", has_text="witnesses").is_visible()
    wrong = page.locator("summary", has_text="WRONG announcement")
    assert wrong.count() == 1 and wrong.locator(".flag").is_visible()
    wrong.click()
    assert page.get_by_text("is WRONG: Alice: announced 18.4, computed 17.40").is_visible()
    opened = artifacts() / "report-world-ticks-opened.png"
    page.screenshot(path=str(opened), full_page=True)
    plot = artifacts() / "report-world-contributions.png"
    page.locator("svg[data-plot=contributions]").screenshot(path=str(plot))
    assert opened.stat().st_size > 10_000 and plot.stat().st_size > 5_000
