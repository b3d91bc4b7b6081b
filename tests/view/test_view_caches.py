"""What the viewer keeps between requests, and when it reads again (docs/view.md): the runs
listing while the runs table is unchanged (a new run, an append and a new status each show
on the next request); a run's decoded history per head (the parts of one page share it, a
newer head is read anew)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from maai.ledger import EventStore
from maai.runtime.view import reading
from maai.runtime.view.app import create_app
from maai.runtime.view.reading import ViewStore
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


def test_the_parts_of_a_page_decode_the_history_once_per_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "ledger.db"
    write_run(db, "run", upto=150)
    decoded: list[tuple[str, int]] = []
    original = ViewStore._decode

    def counting(self: ViewStore, info: Any, experiment: Any) -> Any:
        decoded.append((info.run_id, info.head_seq))
        return original(self, info, experiment)

    monkeypatch.setattr(ViewStore, "_decode", counting)
    client = TestClient(create_app(str(db)))
    parts = ("audits", "transcript", "trails", "calls", "memory", "sections")
    with ThreadPoolExecutor(len(parts)) as pool:  # asked for together, as the page does
        answers = list(pool.map(lambda p: client.get(f"/runs/run/part/{p}?head=150"), parts))
    assert [a.status_code for a in answers] == [200] * len(parts)
    assert decoded == [("run", 150)]
    append_more(db, "run", [e.event for e in golden_history().entries[150:160]])
    assert "#e160" in client.get("/runs/run/part/trails").text  # the new head, read anew
    assert decoded == [("run", 150), ("run", 160)]
    assert "#e160" not in client.get("/runs/run/part/trails?head=150").text  # the old one kept
    assert len(decoded) == 2


def test_a_runs_audits_run_once_per_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A long run's audits take seconds: the page opened again at the same head shows the
    # findings kept; an append (a new head) audits anew.
    db = tmp_path / "ledger.db"
    write_run(db, "run", upto=150)
    audited: list[int] = []
    original = reading.findings

    def counting(history: Any) -> Any:
        audited.append(len(history.entries))
        return original(history)

    monkeypatch.setattr(reading, "findings", counting)
    client = TestClient(create_app(str(db)))
    first = client.get("/runs/run/part/audits?head=150")
    again = client.get("/runs/run/part/audits?head=150")
    assert first.status_code == again.status_code == 200
    assert first.text == again.text
    assert audited == [150]
    append_more(db, "run", [e.event for e in golden_history().entries[150:160]])
    assert client.get("/runs/run/part/audits").status_code == 200
    assert audited == [150, 160]
