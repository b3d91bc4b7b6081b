"""The contract every experiment keeps with the engine, the ledger and the generic commands
(docs/experiments.md, "Contract tests"): a run of its example config with its simulated
participants completes; folding its events gives the state the engine ended with; the same
seed gives the same events; ``maai verify`` and ``maai replay`` accept it; every export and
the report are written, the same bytes each time; its audits pass on this clean run; and a
run cut after any turn, then resumed, ends with the events of the uncut run and passes verify.

``from maai.testing.contract import *`` in a test module runs them for every experiment
installed, or for those the module lists in ``CONTRACT_EXPERIMENTS``. ``MAAI_CONTRACT_CUTS``
sets how many cuts the resume test makes (6 by default; the turns are spread evenly)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.domain import experiments
from maai.ledger import EventStore
from maai.runtime.fold import load_state
from maai.testing.runs import Recorded, differences, record, resume_from, turns

KEY_ENV = "MAAI_SIGNING_KEY"  # as maai.runtime.signing reads it
CUTS_ENV = "MAAI_CONTRACT_CUTS"
DEFAULT_CUTS = 6


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


__all__ = [
    "contract_run",
    "contract_signing_key",
    "pytest_generate_tests",
    "test_contract_a_run_completes",
    "test_contract_a_run_cut_after_any_turn_resumes_to_the_same_events",
    "test_contract_every_export_is_written_the_same_each_time",
    "test_contract_fold_gives_the_engines_state",
    "test_contract_the_audits_pass_on_a_clean_run",
    "test_contract_the_same_seed_gives_the_same_events",
    "test_contract_verify_and_replay_accept_the_run",
]
