"""A study spread over worker processes on PostgreSQL (docs/studies.md "Many machines"): one
worker killed with SIGKILL mid-run, the study still finishes with every run completed once
and verified."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import yaml
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore
from tests.conftest import libpq_dsn
from tests.runtime.test_study import BASE


def _invoke(*args: str) -> object:
    return CliRunner().invoke(app, list(args))


def _jobs(url: str, *statuses: str) -> int:
    schema = make_url(url).query["options"].split("=")[1]  # type: ignore[union-attr]
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        row = conn.execute(
            f'SELECT count(*) FROM "{schema}".procrastinate_jobs WHERE status = ANY(%s)',
            (list(statuses),),
        ).fetchone()
    return int(row[0]) if row else 0


def _runs_of_jobs(url: str, job_ids: list[int]) -> list[str]:
    schema = make_url(url).query["options"].split("=")[1]  # type: ignore[union-attr]
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        rows = conn.execute(
            f'SELECT args FROM "{schema}".procrastinate_jobs WHERE id = ANY(%s)', (job_ids,)
        ).fetchall()
    return [row[0]["run_id"] for row in rows]


def _in_a_run(log: Path) -> bool:
    """Whether the worker writing ``log`` has started a run it has not yet finished."""
    lines = log.read_text(encoding="utf-8").splitlines()
    started = sum(line.endswith(": started") for line in lines)
    return started > sum(line.endswith(": completed") for line in lines)


def _statuses(url: str) -> dict[str, str]:
    with EventStore.open(url) as store:
        return {info.run_id: info.status for info in store.list_runs()}


def test_a_killed_worker_s_run_is_finished_by_another(postgres_url: str, tmp_path: Path) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    slow = [dict(a, persona=dict(a["persona"], latency_ms=40)) for a in BASE["agents"]]
    base = dict(BASE, exchanges=2, agents=slow)
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base), encoding="utf-8")
    study = {
        "study": "spread",
        "base": "base.yaml",
        "factors": {"agents[*].u_value": [0.3, 0.6, 0.9]},
        "replicates": 10,
    }
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(study), encoding="utf-8")

    submitted = _invoke("study", "submit", str(path), "--db", postgres_url)
    assert submitted.exit_code == 0, submitted.output  # type: ignore[attr-defined]
    assert "30 run(s) enqueued" in submitted.output  # type: ignore[attr-defined]

    command = [
        sys.executable,
        "-m",
        "maai",
        "worker",
        "--db",
        postgres_url,
        "--heartbeat-s",
        "0.5",
        "--stalled-after-s",
        "2",
    ]
    logs = [open(tmp_path / f"worker{i}.log", "w") for i in range(3)]  # noqa: SIM115
    workers = [
        subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        for log in logs
    ]
    try:
        deadline = time.monotonic() + 60
        while _jobs(postgres_url, "doing") < 3 or not _in_a_run(tmp_path / "worker0.log"):
            assert time.monotonic() < deadline, "the three workers never all ran at once"
            time.sleep(0.02)
        # Killed as its log shows it inside a run (a run lasts far longer than this check), so
        # that it dies holding a job: a fixed pause let it finish first on a loaded machine.
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait(timeout=10)
        deadline = time.monotonic() + 120
        while True:
            statuses = _statuses(postgres_url)
            # Every run completed, and every job settled (the dead worker's job revived).
            done = len(statuses) == 30 and set(statuses.values()) == {"completed"}
            if done and _jobs(postgres_url, "doing", "todo") == 0:
                break
            assert time.monotonic() < deadline, statuses
            time.sleep(0.2)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()
        for log in logs:
            log.close()
    # The killed worker's run was given to another worker, which finished it.
    survivors = "".join((tmp_path / f"worker{i}.log").read_text(encoding="utf-8") for i in (1, 2))
    revived = [int(w) for w in re.findall(r"job (\d+): its worker stopped answering", survivors)]
    assert revived, survivors
    for run_id in _runs_of_jobs(postgres_url, revived):
        assert f"{run_id}: completed" in survivors or f"{run_id}: already completed" in survivors
    # The run the killed worker was in is continued by a survivor, which records itself.
    killed_log = (tmp_path / "worker0.log").read_text(encoding="utf-8").splitlines()
    begun = {line.removesuffix(": started") for line in killed_log if line.endswith(": started")}
    left = begun - {line.removesuffix(": completed") for line in killed_log}
    assert left, killed_log
    for run_id in left:
        if f"{run_id}: already completed" in survivors:  # it ended just before its kill
            continue
        found = re.search(rf"{re.escape(run_id)}: continuing from event (\d+)", survivors)
        with EventStore.open(postgres_url) as store:
            events = list(store.read(run_id))
        claims = [e for e in events if e.type == "run.claimed"]
        if found is None:  # killed before it wrote anything: a survivor took it afresh
            assert all(c.payload["pid"] != workers[0].pid for c in claims), claims
            assert claims[0].payload["continues"] is False, claims
            continue
        head = int(found.group(1))
        # The killed worker claimed it first, before anything the run derived.
        assert claims[0].payload["pid"] == workers[0].pid, claims
        assert claims[0].payload["continues"] is False
        if events[head - 1].type != "run.completed":  # not ended before the kill: continued
            # The survivor's claim comes first among its events (after the signing
            # evidence its engine names first).
            after = [e for e in events[head:] if e.type != "run.signed"]
            taken = after[0]
            assert taken.type == "run.claimed", (run_id, taken.type)
            assert taken.payload["pid"] != workers[0].pid
            assert taken.payload["continues"] is True
        else:  # its history had ended: only its status was set, run.completed stays last
            assert events[-1].type == "run.completed", [e.type for e in events[head - 1 :]]
    with EventStore.open(postgres_url) as store:
        for run_id in _statuses(postgres_url):
            completed = [e for e in store.read(run_id) if e.type == "run.completed"]
            assert len(completed) == 1, run_id
    for run_id in sorted(_statuses(postgres_url)):
        verified = _invoke("verify", run_id, "--db", postgres_url)
        assert verified.exit_code == 0, (run_id, verified.output)  # type: ignore[attr-defined]


def test_submit_needs_postgresql(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE), encoding="utf-8")
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({"study": "s", "base": "base.yaml"}), encoding="utf-8")
    result = _invoke("study", "submit", str(path), "--db", str(tmp_path / "l.db"))
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert "needs a PostgreSQL ledger" in result.output  # type: ignore[attr-defined]


def test_workers_stop_starting_runs_at_the_study_s_budget(
    postgres_url: str, tmp_path: Path
) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE), encoding="utf-8")
    path = tmp_path / "study.yaml"

    def write(budget: float) -> None:
        study = {
            "study": "priced",
            "base": "base.yaml",
            "factors": {"exchanges": [1, 2]},
            "replicates": 3,
            "prices": {"simulated": {"input": 2.0, "output": 10.0}},
            "budget_usd": budget,
        }
        path.write_text(yaml.safe_dump(study), encoding="utf-8")

    write(0.02)
    assert _invoke("study", "submit", str(path), "--db", postgres_url).exit_code == 0  # type: ignore[attr-defined]
    worker = _invoke("worker", "--db", postgres_url, "--burst")
    assert worker.exit_code == 0, worker.output  # type: ignore[attr-defined]
    assert "not started: the study has cost" in worker.output  # type: ignore[attr-defined]
    done = [s for s in _statuses(postgres_url).values() if s == "completed"]
    assert 0 < len(done) < 6
    write(100)
    assert _invoke("study", "submit", str(path), "--db", postgres_url).exit_code == 0  # type: ignore[attr-defined]
    assert _invoke("worker", "--db", postgres_url, "--burst").exit_code == 0  # type: ignore[attr-defined]
    assert set(_statuses(postgres_url).values()) == {"completed"}
