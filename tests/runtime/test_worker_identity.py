"""A study's worker says what it does and records itself in every run it takes: its id, host
and pid are in a hashed ``run.claimed`` event after the run's signed ``run.started`` (verify
still passes), shown by ``maai show`` and in the study's runs table."""

from __future__ import annotations

import csv
import socket
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime.runs import first_claim
from tests.runtime.test_study import BASE

pytestmark = pytest.mark.postgres


def _invoke(*args: str) -> object:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})


def test_a_worker_records_its_id_and_host_in_each_run_it_takes(
    postgres_url: str, tmp_path: Path
) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE), encoding="utf-8")
    study = {"study": "named", "base": "base.yaml", "factors": {"exchanges": [1]}, "replicates": 2}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(study), encoding="utf-8")
    assert _invoke("study", "submit", str(path), "--db", postgres_url).exit_code == 0  # type: ignore[attr-defined]

    worker = _invoke("worker", "--db", postgres_url, "--burst", "--name", "lab-3")
    output: str = worker.output  # type: ignore[attr-defined]
    assert worker.exit_code == 0, output  # type: ignore[attr-defined]
    host = socket.gethostname()
    lines = output.splitlines()
    assert lines[0].startswith(f"worker lab-3 (host {host}, pid ")
    assert "taking study runs from" in lines[0] and "stops when the queue is empty" in lines[0]
    for run_id in ("named.c1.r1", "named.c1.r2"):
        assert f"{run_id}: started" in lines and f"{run_id}: completed" in lines
        (calls,) = [line for line in lines if line.startswith(f"{run_id}: ") and " in " in line]
        assert calls.startswith(f"{run_id}: ") and "model call(s) in " in calls

    with EventStore.open(postgres_url) as store:
        for run_id in ("named.c1.r1", "named.c1.r2"):
            claimed = first_claim(store, run_id)
            assert claimed is not None, run_id
            assert (claimed.worker, claimed.host, claimed.continues) == ("lab-3", host, False)
            assert claimed.pid > 0
            # Right after the run.started recorded and signed at submit (and the evidence
            # of that signature), before anything the run derives.
            (seq,) = store.seqs_of_type(run_id, "run.claimed")
            assert seq == 2 + len(store.seqs_of_type(run_id, "run.signed"))

    shown = _invoke("show", "named.c1.r1", "--db", postgres_url)
    assert shown.exit_code == 0, shown.output  # type: ignore[attr-defined]
    assert f"taken by worker lab-3 on host {host} (pid " in shown.output  # type: ignore[attr-defined]
    status = _invoke("study", "status", "named", "--db", postgres_url)
    assert status.exit_code == 0, status.output  # type: ignore[attr-defined]
    rows = [line for line in status.output.splitlines() if "named.c1.r" in line]  # type: ignore[attr-defined]
    assert len(rows) == 2 and all(f"lab-3 on {host}" in row for row in rows), rows
    verified = _invoke("verify", "named.c1.r2", "--db", postgres_url)
    assert verified.exit_code == 0, verified.output  # type: ignore[attr-defined]

    out = tmp_path / "tables"
    exported = _invoke("study", "export", "named", "--out", str(out), "--db", postgres_url)
    assert exported.exit_code == 0, exported.output  # type: ignore[attr-defined]
    with (out / "runs.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["worker"], r["host"]) for r in rows] == [("lab-3", host)] * 2
