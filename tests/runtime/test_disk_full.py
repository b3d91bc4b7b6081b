"""A really full disk (a small tmpfs mounted for the test; skipped where mounting is not
allowed): ``maai run`` stops with exit 4 and leaves the run ``interrupted``, never
``running``, every time; a study stops with exit 4, one line per run it stopped, and none
left ``running``. The room for that last status write is the reserve kept beside the ledger
(``ledger.reserve``)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore, StoreFullError
from maai.ledger.reserve import reserve_path

REPO = Path(__file__).resolve().parents[2]
SIZE = "400k"  # a new ledger, the reserve and the first events of a run, no more


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


def _mount(disk: Path) -> None:
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command: a full disk cannot be made")
    disk.mkdir()
    made = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.strip()}")


@pytest.fixture
def small_disks(tmp_path: Path) -> Iterator[Callable[[], Path]]:
    """Mounts a fresh small disk each call; all are unmounted at the end."""
    mounted: list[Path] = []

    def new() -> Path:
        disk = tmp_path / f"disk{len(mounted)}"
        _mount(disk)
        mounted.append(disk)
        return disk

    try:
        yield new
    finally:
        for disk in mounted:  # lazily: a connection the test left open must not stop it
            subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path) -> None:
    """Take every free block of ``disk``: a file written until the disk refuses."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    assert shutil.disk_usage(disk).free < 4096


def _statuses(db: Path) -> dict[str, str]:
    with EventStore.open(str(db), read_only=True) as store:
        return {info.run_id: info.status for info in store.list_runs()}


def test_runs_stopped_by_a_full_disk_are_left_interrupted(
    small_disks: Callable[[], Path],
) -> None:
    config = str(REPO / "configs" / "default.yaml")
    for attempt in range(4):
        db = small_disks() / "l.db"
        result = invoke("run", config, "--db", str(db), "-q")
        assert result.exit_code == 4, result.output
        assert "is full" in result.stderr and "Traceback" not in result.output
        assert list(_statuses(db).values()) == ["interrupted"], attempt


def test_a_study_stopped_by_a_full_disk_exits_4_with_no_run_left_running(
    small_disks: Callable[[], Path], tmp_path: Path
) -> None:
    study = _study(tmp_path, 3)
    db = small_disks() / "l.db"
    result = invoke("study", "run", str(study), "--db", str(db), "-q")
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    statuses = _statuses(db)
    stopped = [line for line in result.stderr.splitlines() if line.startswith("stopped: ")]
    assert stopped and len(stopped) == sum(s != "completed" for s in statuses.values())
    assert set(statuses.values()) <= {"completed", "interrupted"}, statuses


def _study(tmp_path: Path, concurrency: int) -> Path:
    study = tmp_path / "study.yaml"
    study.write_text(
        yaml.safe_dump(
            {
                "study": "full",
                "base": str(REPO / "configs" / "collaboration.yaml"),
                "replicates": 6,
                "seed": 2,
                "concurrency": concurrency,
            }
        ),
        encoding="utf-8",
    )
    return study


def test_only_the_write_that_leaves_a_run_interrupted_may_spend_the_reserve(
    small_disks: Callable[[], Path],
) -> None:
    """A run marked ``running`` as the disk fills is refused like any write: had it spent
    the reserve, its appends would take the room, and the runs stopped after it would stay
    ``running``. The reserve then serves every run stopped, not just the first."""
    disk = small_disks()
    db = disk / "l.db"
    with EventStore.open(str(db)) as store:
        for name in ("a", "b", "c"):
            store.create_run(name, "test", {})
        store.keep_reserve()
        _fill(disk)
        with pytest.raises(StoreFullError):
            store.set_status("a", "running")
        with pytest.raises(StoreFullError):
            store.set_status("b", "completed")
        assert reserve_path(db).exists()
        for name in ("a", "b", "c"):
            store.set_status(name, "interrupted")
        assert not reserve_path(db).exists()
    assert _statuses(db) == dict.fromkeys(("a", "b", "c"), "interrupted")


def test_a_study_whose_disk_fills_as_a_run_starts_leaves_every_stopped_run_interrupted(
    small_disks: Callable[[], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timing that once left runs ``running``, forced: the disk fills just before the
    third run is marked running, while the first two are under way."""
    disk = small_disks()
    db = disk / "l.db"
    marked: list[str] = []
    set_status = EventStore.set_status

    def filling(store: EventStore, run_id: str, status: str) -> object:
        if status == "running":
            marked.append(run_id)
            if len(marked) == 3:
                _fill(disk)
        return set_status(store, run_id, status)

    monkeypatch.setattr(EventStore, "set_status", filling)
    result = invoke("study", "run", str(_study(tmp_path, 3)), "--db", str(db), "-q")
    assert len(marked) == 3, marked
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    statuses = _statuses(db)
    assert statuses == dict.fromkeys(marked, "interrupted"), statuses
    stopped = [line for line in result.stderr.splitlines() if line.startswith("stopped: ")]
    assert len(stopped) == 3, result.stderr
