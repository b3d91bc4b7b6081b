"""``maai view`` follows a submitted study while a worker runs it, in a real browser
(docs/view.md, docs/studies.md "Many machines"): the study page, opened before the worker
starts, shows its done count rise to all done without a reload, and the ETA counting down
between runs. Needs PostgreSQL (``MAAI_TEST_POSTGRES_URL``) and chromium; skips without
either. Screenshots in ``test-artifacts/``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from maai.ledger import EventStore
from tests.browser.test_view_browser import (  # noqa: F401 -- page is a fixture
    artifacts,
    free_port,
    page,
    wait_for_port,
    wait_until,
)
from tests.runtime.test_study import BASE, invoke, write_study

RUNS = 2


def test_a_study_page_follows_a_worker_running_the_study(
    postgres_url: str,
    page: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    study = write_study(tmp_path, factors={"exchanges": [1]}, replicates=RUNS)
    # Participants slow enough that each run lasts a few of the page's polls.
    agents = [{**a, "persona": {**a["persona"], "latency_ms": 1000}} for a in BASE["agents"]]
    (tmp_path / "base.yaml").write_text(yaml.safe_dump({**BASE, "agents": agents}), "utf-8")
    submitted = invoke("study", "submit", str(study), "--db", postgres_url)
    assert submitted.exit_code == 0, submitted.output
    port = free_port()
    command = [sys.executable, "-m", "maai"]
    viewer = subprocess.Popen(
        [*command, "view", "--db", postgres_url, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, viewer)
        page.goto(f"http://127.0.0.1:{port}/studies/grid", wait_until="load")
        page.evaluate("window.__sameDocument = true")
        done = page.locator('.count[data-status="done"] strong')
        eta = page.locator("#study-eta")
        assert done.text_content() == "0"
        assert page.locator("#study-total").text_content() == str(RUNS)
        worker = subprocess.Popen(
            [*command, "worker", "--db", postgres_url, "--burst"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        seen: list[tuple[int, str]] = []

        def all_done() -> bool:
            seen.append((int(done.text_content() or 0), eta.text_content() or ""))
            if seen[-1][0] == 1 and seen[-2][0] == 0:
                page.screenshot(path=str(artifacts() / "view-study-worker-running.png"))
            return seen[-1][0] == RUNS

        try:
            wait_until(all_done, page, 120)
            assert worker.wait(timeout=30) == 0, worker.stderr.read().decode()  # type: ignore[union-attr]
        finally:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=20)
        counts = [n for n, _ in seen]
        # Rising run by run (two runs ending within one poll on a loaded machine may skip a
        # count: seen in CI-like load).
        assert counts == sorted(counts) and counts[0] == 0 and counts[-1] == RUNS, seen
        wait_until(lambda: eta.text_content() == "done", page, 5)
        # The study report's sections below were read again too: every run counted completed.
        report = page.locator("#report")
        counted = rf"completed / failed / other\s*{RUNS} / 0 / 0"
        wait_until(lambda: re.search(counted, report.text_content() or "") is not None, page, 10)
        assert page.evaluate("window.__sameDocument") is True  # no reload happened
        page.screenshot(path=str(artifacts() / "view-study-worker-done.png"), full_page=True)
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        viewer.terminate()
        viewer.wait(timeout=20)
    # While a run went on, the ETA counted down, not only redrawn when a run finished.
    etas = [(n, int(m[1])) for n, text in seen if (m := re.fullmatch(r"(\d+) s", text))]
    pairs = [
        (eta_s, later)
        for (n, eta_s), (later_n, later) in zip(etas, etas[1:], strict=False)
        if n == later_n
    ]
    if len(pairs) >= 25:  # seen for over 2 s while one count held (polled every 0.1 s)
        assert any(later < eta_s for eta_s, later in pairs), sorted(set(seen))
