"""The contract every experiment keeps with the engine, the ledger and the generic commands
(docs/experiments.md, "Contract tests"): a run of its example config with its simulated
participants completes; folding its events gives the state the engine ended with; the same
seed gives the same events; ``maai verify`` and ``maai replay`` accept it; every export and
the report are written, the same bytes each time; its audits pass on this clean run; a
run cut after any turn, then resumed, ends with the events of the uncut run and passes verify;
and a fork with no change and the same draws, at any of its fork points, is the run again
(its prefix the run's own, then the run's events) and passes verify (at its named points, or
at the boundaries ``seq:N`` where it names none); and its failed, interrupted and empty
runs have whole report and view pages that show no Python object as Python writes it and a
failure's reason as text.

``from maai.testing.contract import *`` in a test module runs them for every experiment
installed, or for those the module lists in ``CONTRACT_EXPERIMENTS``. ``MAAI_CONTRACT_CUTS``
sets how many cuts the resume test makes (6 by default; the turns are spread evenly), and
``MAAI_CONTRACT_FORKS`` at how many fork points the fork test forks (3 by default, likewise
spread, the first and last among them: each fork runs the rest of the run again)."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from html import escape
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.domain import experiments
from maai.domain.events import Event, RunFailed, RunForked, RunSigned
from maai.domain.forks import ForkPoint
from maai.ledger import EventStore
from maai.runtime.fold import load_state
from maai.runtime.forks import check_prefix, scan_parent
from maai.runtime.runs import config_snapshot
from maai.runtime.writer import to_new_event
from maai.testing.runs import Recorded, decode, differences, record, resume_from, turns

KEY_ENV = "MAAI_SIGNING_KEY"  # as maai.runtime.signing reads it
CUTS_ENV = "MAAI_CONTRACT_CUTS"
DEFAULT_CUTS = 6
FORKS_ENV = "MAAI_CONTRACT_FORKS"
DEFAULT_FORKS = 3


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "contract_experiment" in metafunc.fixturenames:
        chosen = getattr(metafunc.module, "CONTRACT_EXPERIMENTS", None)
        names = list(chosen) if chosen is not None else experiments.names()
        metafunc.parametrize("contract_experiment", names, scope="module")


@pytest.fixture(scope="module", autouse=True)
def contract_signing_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Runs sign their heads with a key made for these tests (written here, so that the
    tests never depend on maai creating a missing key), never the user's own."""
    if os.environ.get(KEY_ENV):
        yield
        return
    path = tmp_path_factory.mktemp("signing") / "key.pem"
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(pem)
    path.chmod(0o600)
    os.environ[KEY_ENV] = str(path)
    try:
        yield
    finally:
        os.environ.pop(KEY_ENV, None)


@pytest.fixture(scope="module")
def contract_run(
    contract_experiment: str, tmp_path_factory: pytest.TempPathFactory, contract_signing_key: None
) -> Recorded:
    return record(contract_experiment, tmp_path_factory.mktemp(f"contract-{contract_experiment}"))


def maai(*args: str) -> Result:
    """``maai ARGS`` in this process, its output kept."""
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_contract_a_run_completes(contract_run: Recorded) -> None:
    with EventStore.open(contract_run.db) as store:
        assert store.get_run(contract_run.run_id).status == "completed"
    summary = contract_run.experiment.summarize(contract_run.run_id, contract_run.state)
    assert summary.status == "completed", summary.failure
    assert summary.rounds is None or summary.rounds >= 0


def test_contract_fold_gives_the_engines_state(contract_run: Recorded) -> None:
    experiment, events = contract_run.experiment, contract_run.events()
    stepped = experiment.initial_state()
    for event in events:
        stepped = experiment.evolve(stepped, event)
    assert stepped == contract_run.state
    assert experiment.fold(events) == contract_run.state
    with EventStore.open(contract_run.db) as store:
        loaded, head = load_state(store, contract_run.run_id)
    assert head == len(events)
    assert loaded == contract_run.state


def test_contract_the_same_seed_gives_the_same_events(
    contract_run: Recorded, tmp_path: Path
) -> None:
    again = record(contract_run.experiment.name, tmp_path)
    found = differences(again.events(), contract_run.events())
    assert not found, "\n".join(found)


def test_contract_verify_and_replay_accept_the_run(contract_run: Recorded) -> None:
    verified = maai("verify", contract_run.run_id, "--db", contract_run.db)
    assert verified.exit_code == 0, verified.output
    replayed = maai("replay", contract_run.run_id, "--db", contract_run.db)
    assert replayed.exit_code == 0, replayed.output
    assert "status: completed" in replayed.stdout, replayed.output


def test_contract_every_export_is_written_the_same_each_time(
    contract_run: Recorded, tmp_path: Path
) -> None:
    run, db = contract_run.run_id, contract_run.db
    for attempt in ("first", "second"):
        folder = tmp_path / attempt
        commands = [
            ("export", run, "--db", db, "-o", str(folder / "log.json")),
            ("export", run, "--db", db, "-f", "transcript", "-o", str(folder / "transcript.md")),
            ("export", run, "--db", db, "-f", "tables", "--out", str(folder / "tables")),
            ("report", run, "--db", db, "-o", str(folder / "report.html")),
        ]
        folder.mkdir()
        for command in commands:
            result = maai(*command)
            assert result.exit_code == 0, f"maai {' '.join(command)}:\n{result.output}"
    first = {p.relative_to(tmp_path / "first"): p for p in (tmp_path / "first").rglob("*")}
    files = [p for p in first if first[p].is_file()]
    assert {"log.json", "transcript.md", "report.html"} <= {str(p) for p in files}
    assert any(p.parts[0] == "tables" and p.suffix == ".csv" for p in files)
    for path in files:
        assert first[path].stat().st_size > 0, f"{path} is empty"
        assert first[path].read_bytes() == (tmp_path / "second" / path).read_bytes(), path


def test_contract_the_audits_pass_on_a_clean_run(contract_run: Recorded) -> None:
    run, db = contract_run.run_id, contract_run.db
    for audit in ("protocol", "leaks"):
        result = maai("audit", audit, run, "--db", db)
        assert result.exit_code == 0, f"maai audit {audit}:\n{result.output}"
    votes = maai("audit", "votes", run, "--db", db)
    if "has no votes" not in votes.output:
        assert votes.exit_code == 0, f"maai audit votes:\n{votes.output}"


def test_contract_a_run_cut_after_any_turn_resumes_to_the_same_events(
    contract_run: Recorded, tmp_path: Path
) -> None:
    events = contract_run.events()
    cuts = turns(events, int(os.environ.get(CUTS_ENV, DEFAULT_CUTS)))
    assert len(cuts) >= 2
    problems = []
    for cut in cuts:
        resumed = resume_from(contract_run, cut, tmp_path)
        again = resumed.events()
        found = differences(again, events)
        # (Not the uncut run's state: it holds the answers' measured latencies.)
        if resumed.experiment.fold(again) != resumed.state:
            found.append("folding the resumed run's events gives another state than its end")
        verified = maai("verify", resumed.run_id, "--db", resumed.db)
        if verified.exit_code != 0:
            found.append(f"maai verify refuses the resumed run:\n{verified.output}")
        problems += [f"cut after event {cut} of {len(events)}: {line}" for line in found]
    assert not problems, "\n".join(problems)


def test_contract_a_fork_with_no_change_and_the_same_draws_is_the_run_again(
    contract_run: Recorded, tmp_path: Path
) -> None:
    db = str(tmp_path / "forks.db")
    source, target = sqlite3.connect(contract_run.db), sqlite3.connect(db)
    source.backup(target)
    source.close()
    target.close()
    events = contract_run.events()
    with EventStore.open(db) as store:
        scan = scan_parent(store, contract_run.run_id).scan
    # The experiment's named points; where it names none, the boundaries (``seq:N``) that
    # any run can be forked at.
    points = scan.points() or [ForkPoint(f"seq:{seq}", seq) for seq in scan.boundaries]
    assert points, f"a run of {contract_run.experiment.name} has no fork point"
    most = max(2, int(os.environ.get(FORKS_ENV, DEFAULT_FORKS)))
    if len(points) > most:
        step = (len(points) - 1) / (most - 1)
        points = [points[i] for i in sorted({round(i * step) for i in range(most)})]
    problems = []
    for point in points:
        forked = maai("fork", contract_run.run_id, "--at", point.name, "--same-draws", "--db", db)
        assert forked.exit_code == 0, f"maai fork --at {point.name}:\n{forked.output}"
        with EventStore.open(db) as store:
            child = max(store.list_runs(), key=lambda r: r.created_at).run_id
            again = [decode(contract_run.experiment, e) for e in store.read(child)]
            found = [f"its prefix: {line}" for line in check_prefix(store, child)]
        marks = [e for e in again if isinstance(e, RunForked)]
        if [mark.parent_seq for mark in marks] != [point.seq]:
            found.append(f"run.forked: {marks}")
        found += differences([e for e in again if not isinstance(e, RunForked)], events)
        verified = maai("verify", child, "--db", db)
        if verified.exit_code != 0:
            found.append(f"maai verify refuses the fork:\n{verified.output}")
        problems += [f"fork at {point.name} (event {point.seq}): {line}" for line in found]
    assert not problems, "\n".join(problems)


HOSTILE_REASON = (
    "model kept failing: <script>window.__pwned = 1</script>"
    '<img src=x onerror="window.__pwned = 2"> [help](javascript:window.__pwned=3) '
    '"busy" & more'
)
"""The reason of the failed run below: markup and a ``javascript:`` link, as a model's error
could carry them; each page must show it as text."""
PYTHON_LEFTOVERS = re.compile(
    r"\{'|\{&#x27;|\{&#39;|<built-in|&lt;built-in|object at 0x|\bNone</|>None<|>True<|>False<"
)


def unfinished_runs(recorded: Recorded) -> dict[str, list[Event]]:
    """Status → events: the run failed (with :data:`HOSTILE_REASON`) and interrupted halfway,
    and a run with no event."""
    events = [e for e in recorded.events() if not isinstance(e, RunSigned)]
    half = events[: max(1, len(events) // 2)]
    failed = RunFailed(reason=HOSTILE_REASON, address="x/1", agent=recorded.config.agent_names()[0])
    return {"failed": [*half, failed], "interrupted": half, "new": []}


def _page_problems(where: str, page: str) -> list[str]:
    found = [
        f"{where}: {left!r} (Python as Python writes it)" for left in PYTHON_LEFTOVERS.findall(page)
    ]
    for raw in ("<script>window", "<img src=x", 'href="javascript:'):
        if raw in page:
            found.append(f"{where}: {raw!r} reached the page as markup")
    return found


def test_contract_unfinished_runs_have_whole_report_and_view_pages(
    contract_run: Recorded, tmp_path: Path
) -> None:
    """``maai report`` and (with the view extra) ``maai view``'s run pages, through the
    experiment's views alone, for a failed, an interrupted and an empty run: whole pages, no
    Python object written as Python writes it, a failed run's reason shown (escaped, as
    text). (The built-in experiments' study reports of such runs:
    tests/projections/test_report_unfinished.py.)"""
    from maai.projections.history import history_from_events
    from maai.projections.report import run_report

    experiment = contract_run.experiment
    runs = unfinished_runs(contract_run)
    histories = [
        history_from_events(events, f"{status}-run", status, experiment)
        for status, events in runs.items()
    ]
    problems: list[str] = []
    for history in histories:
        if history.status == "interrupted":
            continue  # the failed run's page less the failure (and its plots cost seconds)
        page = run_report(history)
        if not page.endswith("</html>\n"):
            problems.append(f"report of the {history.status} run is cut short")
        problems += _page_problems(f"report of the {history.status} run", page)
    failed = run_report(histories[0])
    if escape(HOSTILE_REASON) not in failed:
        problems.append("the failed run's report does not show its reason")
    problems += _view_problems(contract_run, runs, tmp_path)
    assert not problems, "\n".join(problems)


def _view_problems(recorded: Recorded, runs: dict[str, list[Event]], folder: Path) -> list[str]:
    try:
        from starlette.testclient import TestClient

        from maai.runtime.view.app import create_app
        from maai.runtime.view.pages import PARTS
    except ImportError:  # no view extra (or no httpx): nothing to serve
        return []
    db = str(folder / "view.db")
    config = recorded.config
    with EventStore.open(db) as store:
        for status, events in runs.items():
            store.create_run(f"{status}-run", config.experiment, config_snapshot(config))
            if events:
                store.append(f"{status}-run", 0, [to_new_event(e) for e in events])
                store.set_status(f"{status}-run", status)
    problems: list[str] = []
    client = TestClient(create_app(db))
    for status in runs:
        # Every part of the failed run's page; the others' page (the parts read their
        # events by the same code whatever the status; the sections are the report's).
        parts = PARTS if status == "failed" else ()
        for url in [f"/runs/{status}-run", *(f"/runs/{status}-run/part/{p}" for p in parts)]:
            response = client.get(url)
            if response.status_code != 200:
                problems.append(f"maai view {url}: {response.status_code}")
            problems += _page_problems(f"maai view {url}", response.text)
    sections = client.get("/runs/failed-run/part/sections").text
    if escape(HOSTILE_REASON) not in sections:
        problems.append("maai view does not show the failed run's reason")
    return problems


__all__ = [
    "contract_run",
    "contract_signing_key",
    "pytest_generate_tests",
    "test_contract_a_run_completes",
    "test_contract_a_fork_with_no_change_and_the_same_draws_is_the_run_again",
    "test_contract_a_run_cut_after_any_turn_resumes_to_the_same_events",
    "test_contract_every_export_is_written_the_same_each_time",
    "test_contract_fold_gives_the_engines_state",
    "test_contract_the_audits_pass_on_a_clean_run",
    "test_contract_the_same_seed_gives_the_same_events",
    "test_contract_unfinished_runs_have_whole_report_and_view_pages",
    "test_contract_verify_and_replay_accept_the_run",
]
