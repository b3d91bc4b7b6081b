"""``maai view`` through Starlette's test client: pages, escaping, errors, read-only, live
updates at a head, the token (docs/view.md)."""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from maai.cli.view_commands import is_loopback
from maai.domain.frohlich.events import StatementMade
from maai.runtime.view.app import create_app
from tests.view.ledgers import append_more, write_run


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("view") / "ledger.db"
    write_run(db, "golden-run", hostile=True, labels={"study": "s1", "cell": 1, "replicate": 1})
    write_run(db, "short-run", upto=40, labels={"condition": "low"})
    return db


@pytest.fixture(scope="module")
def client(hostile_db: Path) -> TestClient:
    return TestClient(create_app(str(hostile_db)))


PARTS = ("lineage", "timeline", "audits", "transcript", "trails", "calls", "memory", "sections")


def every_page(client: TestClient, run_id: str) -> dict[str, str]:
    pages = {"/": client.get("/").text, f"/runs/{run_id}": client.get(f"/runs/{run_id}").text}
    for part in PARTS:
        url = f"/runs/{run_id}/part/{part}"
        response = client.get(url)
        assert response.status_code == 200, (url, response.text[:500])
        pages[url] = response.text
    seqs = re.findall(r"/prompt/(\d+)", pages[f"/runs/{run_id}/part/calls"])
    assert seqs
    pages["prompt"] = client.get(f"/runs/{run_id}/prompt/{seqs[0]}").text
    pages["live"] = client.get(f"/runs/{run_id}/live?after=0").json()["html"]
    pages["compare"] = client.get(f"/compare?a={run_id}&b=short-run").text
    pages["study"] = client.get("/studies/s1").text
    pages["study report"] = client.get("/studies/s1/part/report").text
    return pages


def test_every_model_text_is_escaped(client: TestClient) -> None:
    pages = every_page(client, "golden-run")
    shown = 0
    for url, html in pages.items():
        assert "<script>window" not in html, url
        assert "<img src=x" not in html, url
        assert 'href="javascript:' not in html, url
        assert "<h1>Heading" not in html and "<strong>bold" not in html, url
        shown += html.count("&lt;script&gt;window.__pwned = 1&lt;/script&gt;")
    # The texts are there, as text: statements, answers and memories on several pages.
    assert shown >= 5
    assert "javascript:window.__pwned=3" in pages["/runs/golden-run/part/calls"]


def test_runs_page_lists_filters_and_links(client: TestClient) -> None:
    html = client.get("/").text
    assert 'href="/runs/golden-run"' in html and 'href="/runs/short-run"' in html
    assert 'href="/studies/s1"' in html
    only = client.get("/?label=condition=low").text
    assert "/runs/short-run" in only and "/runs/golden-run" not in only
    by_study = client.get("/?study=s1").text
    assert "/runs/golden-run" in by_study and "/runs/short-run" not in by_study
    none = client.get("/?experiment=collaboration").text
    assert "No run matches." in none
    running = client.get("/?status=running").text
    assert "/runs/short-run" in running and "/runs/golden-run" not in running
    later = client.get("/?since=2999-01-01").text
    assert "No run matches." in later


def test_run_page_shows_calls_memory_and_sections(client: TestClient) -> None:
    run = client.get("/runs/golden-run").text
    assert 'id="timeline"' in run and "statement.made" in run
    assert "model.requested" not in run  # calls are listed under Calls, each with its events
    calls = client.get("/runs/golden-run/part/calls").text
    assert calls.count('<details class="call"') > 20
    assert "read as" in calls  # the parser's reading of an answer
    memory = client.get("/runs/golden-run/part/memory").text
    assert 'class="add"' in memory  # a diff between two versions
    sections = client.get("/runs/golden-run/part/sections").text
    assert "Payoffs" in sections and "<svg" in sections  # the report's sections and plots


def test_deep_links_name_call_slots(client: TestClient) -> None:
    calls = client.get("/runs/golden-run/part/calls").text
    statement = re.search(r'<details class="call" id="([^"]*statement[^"]*)"', calls)
    assert statement is not None
    timeline = client.get("/runs/golden-run").text
    assert 'data-address="' in timeline


def test_unknown_ids_are_404_pages_without_a_traceback(client: TestClient) -> None:
    for url in (
        "/runs/no-such-run",
        "/runs/no-such-run/part/calls",
        "/runs/golden-run/part/nothing",
        "/runs/golden-run/prompt/1",  # seq 1 is run.started, not a request
        "/studies/nothing",
        "/compare?a=golden-run&b=nothing",
        "/no/such/page",
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "Traceback" not in response.text and "File " not in response.text, url
    assert client.get("/runs/no-such-run/live").status_code == 404


def test_a_missing_or_corrupted_ledger_is_one_clear_page_and_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "nothing.db"
    client = TestClient(create_app(str(missing)))
    with caplog.at_level(logging.ERROR, logger="maai.view"):
        first = client.get("/")
        second = client.get("/runs/x")
    assert first.status_code == second.status_code == 503
    assert "The ledger cannot be read" in first.text and str(missing) in first.text
    assert "Traceback" not in first.text
    assert len([r for r in caplog.records if str(missing) in r.getMessage()]) == 1
    assert not missing.exists()  # not created
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    response = TestClient(create_app(str(garbage))).get("/")
    assert response.status_code == 503 and "garbage.db" in response.text


def test_the_viewer_never_writes_to_the_ledger(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    write_run(db, "golden-run", labels={"study": "s1", "cell": 1, "replicate": 1})
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    app = create_app(str(db))
    with TestClient(app) as client:
        every_page(client, "golden-run")
        assert app.state.store.store().read_only
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    assert after["ledger.db"] == before["ledger.db"]
    # A reader of a WAL database opens the shared-memory index beside it; no page is
    # written to the log.
    assert set(after) - set(before) <= {"ledger.db-shm", "ledger.db-wal"}
    wal = tmp_path / "ledger.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0


def test_postgres_is_read_in_read_only_transactions(postgres_url: str) -> None:
    from sqlalchemy import text

    write_run(postgres_url, "golden-run", upto=60)
    app = create_app(postgres_url)
    with TestClient(app) as client:
        assert client.get("/runs/golden-run").status_code == 200
        engine = app.state.store.store()._engine
        with engine.connect() as conn:
            assert conn.execute(text("SHOW transaction_read_only")).scalar() == "on"


def test_live_events_come_after_the_head_and_parts_stop_at_theirs(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    write_run(db, "live-run", upto=200)
    client = TestClient(create_app(str(db)))
    page = client.get("/runs/live-run").text
    head = int(re.search(r'data-head="(\d+)"', page).group(1))  # type: ignore[union-attr]
    assert head == 200
    assert client.get(f"/runs/live-run/live?after={head}").json() == {
        "status": "running",
        "head": 200,
        "html": "",
    }
    more = _golden_events()[200:240]
    assert any(isinstance(e, StatementMade) for e in more)
    append_more(db, "live-run", more)
    live = client.get(f"/runs/live-run/live?after={head}").json()
    assert live["head"] == 240
    seqs = [int(seq) for seq in re.findall(r'<li class="event" id="e(\d+)"', live["html"])]
    assert seqs and min(seqs) > 200 and max(seqs) <= 240
    # A part asked for at the page's head shows that head's events, not the newer ones.
    trails = client.get(f"/runs/live-run/part/trails?head={head}").text
    assert "#e200" in trails and "#e201" not in trails
    assert "statement.made" in live["html"]


def _golden_events() -> list[object]:
    from tests.projections.frohlich.recording import golden_history

    return [entry.event for entry in golden_history().entries]


def test_compare_aligns_two_runs_by_step(client: TestClient) -> None:
    form = client.get("/compare?a=golden-run")
    assert form.status_code == 200 and 'value="golden-run"' in form.text
    html = client.get("/compare?a=golden-run&b=short-run").text
    rows = re.findall(r'<tr class="(same|differs|only)">', html)
    assert rows.count("only") > 100  # the short run stops at its 40th event
    assert rows[:5] == ["same"] * 5 or "differs" in rows[:40]


def test_study_page_counts_and_links_its_runs(client: TestClient) -> None:
    html = client.get("/studies/s1").text
    assert 'href="/runs/golden-run"' in html
    assert re.search(r'data-status="done">done <strong>1</strong>', html)
    assert client.get("/studies/s1/live").json()["counts"]["completed"] == 1
    report = client.get("/studies/s1/part/report")  # maai study report's sections
    assert report.status_code == 200 and "golden-run" in report.text and "<section" in report.text
    assert client.get("/studies/nothing/part/report").status_code == 404


def test_a_token_guards_a_viewer_bound_beyond_loopback(hostile_db: Path) -> None:
    client = TestClient(create_app(str(hostile_db), token="s3cret"))
    assert client.get("/").status_code == 403
    assert client.get("/?token=wrong").status_code == 403
    assert client.get("/?token=s3cret").status_code == 200
    assert client.get("/runs/golden-run").status_code == 200  # the cookie now
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


def test_pages_are_served_with_a_content_security_policy(client: TestClient) -> None:
    policy = client.get("/runs/golden-run").headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    # Scripts fall under default-src: only the package's own file, never an inline one.
    assert directives["default-src"] == "'self'" and "script-src" not in directives


@pytest.mark.parametrize("config", ["collaboration", "world", "ultimatum"])
def test_every_experiment_gets_every_page(tmp_path: Path, config: str) -> None:
    from typer.testing import CliRunner

    from maai.cli.app import app

    db = str(tmp_path / "ledger.db")
    made = CliRunner().invoke(app, ["run", config, "--db", db])
    assert made.exit_code == 0, made.output
    client = TestClient(create_app(db))
    (run_id,) = re.findall(r'href="/runs/([^"]+)"', client.get("/").text)
    page = client.get(f"/runs/{run_id}")
    assert page.status_code == 200 and 'id="timeline"' in page.text
    for part in PARTS:
        response = client.get(f"/runs/{run_id}/part/{part}")
        assert response.status_code == 200, (part, response.text[:300])
        assert "cannot be built" not in response.text and "Not checked" not in response.text
    calls = client.get(f"/runs/{run_id}/part/calls").text
    assert calls.count('<details class="call"') > 0


def test_the_first_screen_holds_the_timeline_start_and_its_part_the_rest(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maai.runtime.view import pages

    monkeypatch.setattr(pages, "FIRST_SCREEN", 10)
    page = client.get("/runs/golden-run").text
    first = [int(s) for s in re.findall(r'<li class="event" id="e(\d+)"', page)]
    assert len(first) == 10
    slot = re.search(
        r'data-part="(/runs/golden-run/part/timeline\?head=(\d+)&amp;from=(\d+))"', page
    )
    assert slot is not None and int(slot.group(3)) == first[-1]
    rest_html = client.get(slot.group(1).replace("&amp;", "&")).text
    rest = [int(s) for s in re.findall(r'<li class="event" id="e(\d+)"', rest_html)]
    monkeypatch.setattr(pages, "FIRST_SCREEN", 10_000)
    whole = client.get("/runs/golden-run").text
    every = [int(s) for s in re.findall(r'<li class="event" id="e(\d+)"', whole)]
    assert first + rest == every and len(every) > 20
    assert "part/timeline" not in whole


def test_runs_not_folded_in_time_are_pending_and_come_on_the_next_ask(
    hostile_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maai.runtime.view import pages

    monkeypatch.setattr(pages, "FOLD_BUDGET_S", 0.0)
    client = TestClient(create_app(str(hostile_db)))  # no lifespan: nothing warms the rows
    first = client.get("/").text
    assert 'data-pending="1"' in first and first.count("reading…") == 1  # one of two folded
    second = client.get("/").text
    assert "data-pending" not in second and "reading…" not in second
    assert second.count('<tr class="status-') == 2 and "golden-run" in second


def test_runs_listed_without_configs_agree_with_list_runs(hostile_db: Path) -> None:
    from maai.ledger import EventStore

    with EventStore.open(str(hostile_db), read_only=True) as store:
        whole = store.list_runs()
        light = store.list_runs_without_config()
        configs = store.configs([info.run_id for info in light] + ["absent"])
    assert [i.model_copy(update={"config": configs[i.run_id]}) for i in light] == whole
    assert all(info.config == {} for info in light) and "absent" not in configs


def test_cost_is_shown_at_the_run_config_prices(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    write_run(db, "priced", prices={"simulated": {"input": 2.0, "output": 4.0}})
    write_run(db, "unpriced")
    client = TestClient(create_app(str(db)))
    html = client.get("/?sort=id&order=asc").text
    priced, unpriced = re.findall(r"<tr class=\"status-[^\"]*\">(.*?)</tr>", html, re.S)
    tokens = re.search(r"<td>(\d+) / (\d+)</td>", priced)
    assert tokens is not None
    cost = (int(tokens.group(1)) * 2.0 + int(tokens.group(2)) * 4.0) / 1_000_000
    assert f"${cost:.4f}" in priced and cost > 0
    assert "no price" in unpriced


def test_runs_recorded_by_a_modified_build_are_named(tmp_path: Path) -> None:
    """As show, verify and the report do (docs/ledger.md, "Provenance"): a run whose
    run.started says ``git.dirty`` is marked in the list and named on its page."""
    db = tmp_path / "ledger.db"
    commit = "0123456789abcdef0123"
    write_run(db, "dirty", provenance={"maai": "9.9", "git": {"commit": commit, "dirty": True}})
    write_run(db, "clean", provenance={"maai": "9.9", "git": {"commit": commit, "dirty": False}})
    client = TestClient(create_app(str(db)))
    html = client.get("/?sort=id&order=asc").text
    clean, dirty = re.findall(r"<tr class=\"status-[^\"]*\">(.*?)</tr>", html, re.S)
    assert "modified build" in dirty and "modified build" not in clean
    page = client.get("/runs/dirty").text
    assert 'id="modified-build"' in page and "0123456789ab" in page
    assert "uncommitted changes" in page
    assert 'id="modified-build"' not in client.get("/runs/clean").text


def test_the_command_cites_its_docs_and_refuses_a_bad_port() -> None:
    from typer.testing import CliRunner

    from maai.cli.app import app

    helped = CliRunner().invoke(app, ["view", "--help"])
    assert helped.exit_code == 0 and "docs/view.md" in helped.output
    bad = CliRunner().invoke(app, ["view", "--port", "70000"])
    assert bad.exit_code == 2


def test_a_locked_ledger_is_a_clear_page_within_seconds(tmp_path: Path) -> None:
    import sqlite3
    import time

    db = tmp_path / "ledger.db"
    write_run(db, "golden-run", upto=20)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")  # readers too are kept out
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("UPDATE runs SET status = status")
        started = time.monotonic()
        response = TestClient(create_app(str(db))).get("/")
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert response.status_code == 503 and "locked" in response.text
    assert waited < 15  # the viewer's short busy timeout, not the writers' 30 s
