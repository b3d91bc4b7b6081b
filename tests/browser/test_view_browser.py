"""``maai view`` in a real browser (Debian's chromium through Playwright, as the report's
browser tests): the runs page, then a run started in another process, whose new statements
appear on its page without a reload. Screenshots go to ``$MAAI_TEST_ARTIFACTS`` (default
``test-artifacts/``). Without chromium or Playwright the tests skip, saying which."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from maai.ledger import EventStore
from tests.view.ledgers import write_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no chromium on PATH: install Debian's (apt-get install chromium) to run the browser "
        "tests of maai view",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
)

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"


def artifacts() -> Path:
    folder = Path(os.environ.get("MAAI_TEST_ARTIFACTS") or REPO / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"maai view exited: {process.stderr.read().decode()}")  # type: ignore[union-attr]
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"maai view did not listen on {port} within {timeout_s} s")


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A ledger with one finished run, and ``maai view`` serving it; (base URL, ledger)."""
    db = tmp_path / "ledger.db"
    write_run(db, "golden-run")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "maai", "view", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}", db
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def page() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], headless=True
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        yield page
        browser.close()


def wait_until(condition: Any, page: Any, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout_s} s"
        page.wait_for_timeout(100)


def slow_config(folder: Path) -> Path:
    """The default config with participants that take a moment to answer, so the run is
    still being written while the browser watches it."""
    data = yaml.safe_load((CONFIGS / "default.yaml").read_text(encoding="utf-8"))
    for agent in data["agents"]:
        agent.setdefault("persona", {})["latency_ms"] = 40
    path = folder / "slow.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def started_run(db: Path, known: set[str], timeout_s: float = 60) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with EventStore.open(str(db), read_only=True) as store:
            new = [r.run_id for r in store.list_runs() if r.run_id not in known]
        if new:
            return new[0]
        time.sleep(0.1)
    raise AssertionError("the run did not start")


def test_a_new_statement_appears_on_the_run_page_without_a_reload(
    viewer: tuple[str, Path], page: Any, tmp_path: Path
) -> None:
    base, db = viewer
    page.goto(base + "/", wait_until="load")
    assert page.locator('a[href="/runs/golden-run"]').count() == 1
    page.screenshot(path=str(artifacts() / "view-runs.png"), full_page=True)

    run = subprocess.Popen(
        [sys.executable, "-m", "maai", "run", str(slow_config(tmp_path)), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        run_id = started_run(db, {"golden-run"})
        page.goto(f"{base}/runs/{run_id}", wait_until="load")
        page.evaluate("window.__sameDocument = true")
        statements = 'li.event[data-type="statement.made"]'
        before = page.locator(statements).count()
        # Polled from here: the page's policy forbids evaluating strings (wait_for_function).
        wait_until(lambda: page.locator(statements).count() > before, page, 120)
        assert page.evaluate("window.__sameDocument") is True  # no reload happened
        page.screenshot(path=str(artifacts() / "view-run-live.png"))
        newest = page.locator(statements).last
        newest.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts() / "view-run-new-statement.png"))
        assert run.wait(timeout=300) == 0, run.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if run.poll() is None:
            run.terminate()
            run.wait(timeout=10)
    # Once done, its status reaches the page by the same polling.
    wait_until(lambda: page.locator("#run-status").text_content() == "completed", page, 10)
    page.reload(wait_until="load")  # the parts are read at the head the page was read at
    page.wait_for_selector("details.call", timeout=30_000)
    page.locator("details.call").first.locator("summary").click()
    page.wait_for_selector("details.call .prompt pre", timeout=10_000)
    page.screenshot(path=str(artifacts() / "view-run-calls.png"), full_page=False)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_study_page_follows_the_study_as_it_runs(
    viewer: tuple[str, Path], page: Any, tmp_path: Path
) -> None:
    base, db = viewer
    study = tmp_path / "study.yaml"
    study.write_text(
        yaml.safe_dump(
            {
                "study": "browser-study",
                "base": "collaboration",
                "factors": {"agents[*].u_value": [0.55, 0.95]},
                "replicates": 3,
                "seed": 7,
                "concurrency": 1,
            }
        ),
        encoding="utf-8",
    )
    runner = subprocess.Popen(
        [sys.executable, "-m", "maai", "study", "run", str(study), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        started_run(db, {"golden-run"})
        page.goto(f"{base}/studies/browser-study", wait_until="load")
        page.evaluate("window.__sameDocument = true")
        completed = page.locator('.count[data-status="done"] strong')
        runs = page.locator('#study a[href^="/runs/browser-study"]')
        first = int(completed.text_content() or "0")
        page.screenshot(path=str(artifacts() / "view-study-running.png"), full_page=True)
        assert runner.wait(timeout=300) == 0, runner.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if runner.poll() is None:
            runner.terminate()
            runner.wait(timeout=10)
    wait_until(lambda: completed.text_content() == "6", page, 15)
    assert first < 6  # it was seen under way, and caught up without a reload
    wait_until(lambda: runs.count() == 6, page, 10)  # every run linked, none left "running"
    wait_until(lambda: "(running)" not in (page.locator("#study").text_content() or ""), page, 10)
    assert page.evaluate("window.__sameDocument") is True
    page.screenshot(path=str(artifacts() / "view-study-done.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]
