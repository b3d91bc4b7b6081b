"""A file-size limit (``ulimit -f``) reached while writing the ledger is a full store: exit 4,
not 3 (busy). A study stopped by it names each run it stopped on one line and leaves them
``interrupted`` (never ``running`` or ``created``); the next ``study run``, with space again,
finishes every run signed."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime.checkpoints import check_checkpoints

REPO = Path(__file__).resolve().parents[2]

LIMIT_BYTES = 300_000  # well below what the study writes, above a new ledger's size
RUN_LIMIT_BYTES = 150_000  # below what one run writes


@contextmanager
def _file_size_limit(limit: int | None) -> Iterator[None]:
    """The soft limit only, on this process, for the block: the hard one stays, so it can be
    raised back (Python ignores SIGXFSZ: a write past it fails with EFBIG)."""
    if limit is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def _maai(*args: str, limit: int | None = None) -> Result:
    with _file_size_limit(limit):
        return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


def _study(folder: Path) -> Path:
    path = folder / "study.yaml"
    study = {
        "study": "limited",
        "base": str(REPO / "configs" / "collaboration.yaml"),
        "factors": {"agents[*].u_value": [0.55, 0.95]},
        "replicates": 3,
        "seed": 7,
        "concurrency": 4,
    }
    path.write_text(yaml.safe_dump(study), encoding="utf-8")
    return path


def test_a_study_past_the_file_size_limit_exits_4_with_its_runs_interrupted(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "l.db")
    study = _study(tmp_path)
    stopped = _maai("study", "run", str(study), "--db", db, "-q", limit=LIMIT_BYTES)
    assert stopped.exit_code == 4, stopped.output
    assert "Traceback" not in stopped.stderr
    lines = [line for line in stopped.stderr.splitlines() if line.startswith("stopped: ")]
    with EventStore.open(db) as store:
        statuses = {info.run_id: info.status for info in store.list_runs()}
    unfinished = sorted(r for r, s in statuses.items() if s != "completed")
    assert unfinished and set(statuses.values()) <= {"completed", "interrupted"}
    assert sorted(line.split(":")[1].strip() for line in lines) == unfinished
    assert all("ulimit -f" in line for line in lines)
    again = _maai("study", "run", str(study), "--db", db, "-q")
    assert again.exit_code == 0, again.output
    with EventStore.open(db) as store:
        infos = store.list_runs()
        assert len(infos) == 6 and {i.status for i in infos} == {"completed"}
        for info in infos:
            assert store.verify_chain(info.run_id).ok
            assert check_checkpoints(store, info.run_id).ok, info.run_id


def test_a_single_run_past_the_file_size_limit_exits_4_interrupted(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    config = str(REPO / "configs" / "collaboration.yaml")
    stopped = _maai("run", config, "--db", db, "-q", limit=RUN_LIMIT_BYTES)
    assert stopped.exit_code == 4, stopped.output
    assert "ulimit -f" in stopped.stderr and "Traceback" not in stopped.stderr
    with EventStore.open(db) as store:
        (info,) = store.list_runs()
        assert info.status == "interrupted"
    resumed = _maai("resume", info.run_id, "--db", db, "-q")
    assert resumed.exit_code == 0, resumed.output
    assert _maai("verify", info.run_id, "--db", db).exit_code == 0
