"""A study from a fork point spread over ``maai worker`` processes on PostgreSQL
(docs/forks.md, docs/studies.md "Many machines"): its runs are created as forks at submit,
the workers run them on from their point, and each is a fork of the study's run with its
lineage and a prefix that verifies against the parent's chain."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime.forks import check_prefix, forked_of


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_a_fork_study_runs_through_workers_as_forks_of_its_run(
    postgres_url: str, tmp_path: Path
) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    done = _invoke("run", "collaboration", "--db", postgres_url, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(postgres_url) as store:
        (parent,) = [r.run_id for r in store.list_runs()]
    study = tmp_path / "forked.yaml"
    study.write_text(
        f"study: wforked\nfork: {{from: {parent}, at: 'exchange:3'}}\n"
        "factors:\n  agents[name=Ben].temperature: [0.2, 0.9]\nreplicates: 1\n",
        encoding="utf-8",
    )
    submitted = _invoke("study", "submit", str(study), "--db", postgres_url)
    assert submitted.exit_code == 0, submitted.output
    assert "2 run(s) enqueued" in submitted.output

    log_path = tmp_path / "worker.log"
    with log_path.open("w") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "maai", "worker", "--db", postgres_url, "-j", "2"],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            deadline = time.monotonic() + 120
            while True:
                with EventStore.open(postgres_url) as store:
                    statuses = {r.run_id: r.status for r in store.list_runs() if r.run_id != parent}
                if len(statuses) == 2 and set(statuses.values()) == {"completed"}:
                    break
                assert worker.poll() is None, log_path.read_text(encoding="utf-8")
                assert time.monotonic() < deadline, (statuses, log_path.read_text("utf-8"))
                time.sleep(0.2)
        finally:
            worker.terminate()
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()

    with EventStore.open(postgres_url) as store:
        parent_events = list(store.read(parent))
        for run_id in statuses:
            forked = forked_of(store, run_id)
            assert forked is not None, run_id
            assert (forked.parent_run, forked.point) == (parent, "exchange:3")
            assert forked.parent_hash == parent_events[forked.parent_seq - 1].hash
            assert check_prefix(store, run_id) == []
            events = list(store.read(run_id))
            # The worker claimed it after the point: the prefix is the parent's alone.
            claims = [e.seq for e in events if e.type == "run.claimed"]
            assert claims and min(claims) > forked.parent_seq + 1
            assert events[-1].type == "run.completed"
    for run_id in statuses:
        verified = _invoke("verify", run_id, "--db", postgres_url)
        assert verified.exit_code == 0, (run_id, verified.output)
    tree = _invoke("runs", "--tree", "--db", postgres_url).output.splitlines()
    assert sum("(fork at exchange:3, seq" in line for line in tree) == 2, tree
