"""The runs page keeps its listing between requests only while the runs table is unchanged:
a new run, an append and a new status each show on the next request (docs/view.md)."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from maai.ledger import EventStore
from maai.runtime.view.app import create_app
from tests.projections.frohlich.recording import golden_history
from tests.view.ledgers import append_more, write_run


def listed(client: TestClient) -> dict[str, str]:
    """run id -> status, as the runs page shows them."""
    html = client.get("/").text
    rows = re.findall(r'<tr class="status-(\w+)[^"]*">\s*<td><a href="/runs/([^"]+)"', html)
    return {run_id: status for status, run_id in rows}


def test_a_new_run_an_append_and_a_new_status_show_on_the_next_request(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    write_run(db, "first", upto=30)
    client = TestClient(create_app(str(db)))
    assert listed(client) == {"first": "running"}
    assert listed(client) == {"first": "running"}  # from the kept listing
    write_run(db, "second", upto=20)
    assert listed(client) == {"first": "running", "second": "running"}
    with EventStore.open(str(db)) as store:
        store.set_status("first", "failed")
    assert listed(client)["first"] == "failed"
    page = client.get("/?sort=events&order=desc").text
    assert page.index("/runs/first") < page.index("/runs/second")  # 30 events against 20
    write_run(db, "third", upto=40)
    page = client.get("/?sort=events&order=desc").text
    assert page.index("/runs/third") < page.index("/runs/first")
    append_more(db, "second", [e.event for e in golden_history().entries[20:60]])
    page = client.get("/?sort=events&order=desc").text  # an append alone: 60 events now
    assert page.index("/runs/second") < page.index("/runs/third")
