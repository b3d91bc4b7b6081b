"""``maai view`` and ``maai report`` render through the same templates (docs/view.md, "Every
experiment"): a run's sections on the viewer's page are the report's sections, byte for byte
and with the same anchors, and the stylesheet the viewer serves is the one a report inlines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.projections.report import run_report
from maai.runtime.view.app import create_app
from tests.view.ledgers import write_run

SECTION = re.compile(r'<section id="(s\d+-[a-z0-9-]+)" class="report">.*?</section>', re.S)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shared") / "ledger.db"
    write_run(path, "golden-run", hostile=True)
    return path


def test_the_run_pages_sections_are_the_reports(db: Path) -> None:
    with EventStore.open(str(db)) as store:
        info = store.get_run("golden-run")
        history = history_from_stored(info.run_id, store.read(info.run_id), info.status)
    report = run_report(history)
    shown = TestClient(create_app(str(db))).get("/runs/golden-run/part/sections")
    assert shown.status_code == 200
    in_report = [m.group(0) for m in SECTION.finditer(report)]
    in_view = [m.group(0) for m in SECTION.finditer(shown.text)]
    assert len(in_report) >= 5  # the run, and the experiment's own sections
    assert in_view == in_report


def test_the_served_stylesheet_is_the_one_a_report_inlines(db: Path) -> None:
    client = TestClient(create_app(str(db)))
    page = client.get("/runs/golden-run").text
    (href,) = re.findall(r'<link rel="stylesheet" href="([^"]+)">', page)
    served = client.get(href)
    assert served.status_code == 200 and served.headers["content-type"].startswith("text/css")
    with EventStore.open(str(db)) as store:
        info = store.get_run("golden-run")
        history = history_from_stored(info.run_id, store.read(info.run_id), info.status)
    report = run_report(history)
    inlined = report[report.index("<style>") + len("<style>") : report.index("</style>")]
    assert inlined == served.text and "dl.facts" in inlined
