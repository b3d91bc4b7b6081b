"""Ctrl-C in the first moment of ``maai run``, sent to a real ``maai`` process: as its ledger
is created, as the run's row appears, as its first event lands. Every time: exit 130, one
line, no traceback; a run that exists is ``interrupted`` (never ``running``), has one
unbroken chain, and ``maai resume`` completes it."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from maai.ledger import EventStore
from tests.e2e.history import only_run, wait_for
from tests.e2e.launcher import CliProcess, Launcher
from tests.e2e.runs import write_config

# The default config (its first 3 agents, 3 rounds) with every answer 50 ms late: its run
# lasts seconds, so a Ctrl-C sent as the first event lands cannot come after the run has
# completed, however busy the machine (with answers at once, a loaded machine sometimes saw
# the run end first).
LATENCY_MS = 50


def ledger_file(db: Path, store: EventStore | None) -> bool:
    return db.exists()


def run_row(db: Path, store: EventStore | None) -> bool:
    assert store is not None
    return only_run(store) is not None


def first_event(db: Path, store: EventStore | None) -> bool:
    assert store is not None
    info = only_run(store)
    return info is not None and info.head_seq >= 1


TRIGGERS: dict[str, Callable[[Path, EventStore | None], bool]] = {
    "ledger file": ledger_file,
    "run row": run_row,
    "first event": first_event,
}


def exited(child: CliProcess) -> str | None:
    code = child.poll()
    return None if code is None else f"maai exited with {code} first:\n{child.output()}"


def interrupt_at(cli: Launcher, db: Path, trigger: str, *, real: bool = False) -> CliProcess:
    condition = TRIGGERS[trigger]
    config = write_config(db.with_name("config.yaml"), latency_ms=LATENCY_MS)
    store = None
    if trigger != "ledger file":
        EventStore.open(str(db)).close()  # the child finds the schema there
        store = EventStore.open(str(db))
    try:
        child = cli.start("run", config, "--db", db, "-q", real=real)
        wait_for(
            lambda: condition(db, store),
            timeout=120,
            interval=0.001,
            what=trigger,
            abort=lambda: exited(child),
        )
        child.send(signal.SIGINT)
        child.wait(60)
    finally:
        if store is not None:
            store.close()
    return child


def check(cli: Launcher, child: CliProcess, db: Path) -> None:
    assert child.poll() == 130, child.output()
    output = child.output()
    assert "Traceback" not in output and "Aborted" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    said = [line for line in lines if not line.startswith("run id: ")]
    assert len(said) == 1 and said[0].startswith("interrupted"), output
    info = None
    if db.exists():
        with EventStore.open(str(db)) as store:
            info = only_run(store)
            if info is not None:
                assert store.verify_chain(info.run_id).ok
    if info is None:
        assert said[0] == "interrupted before the run started; nothing was recorded.", output
        return
    assert info.status == "interrupted", f"status {info.status}"
    assert said[0] == (
        f"interrupted. The run is saved; continue it with: maai resume {info.run_id}"
    )
    resumed = cli.run("resume", info.run_id, "--db", db, "-q")
    assert resumed.poll() == 0, resumed.output()
    verified = cli.run("verify", info.run_id, "--db", db)
    assert verified.poll() == 0, verified.output()
    with EventStore.open(str(db)) as store:
        assert store.get_run(info.run_id).status == "completed"


@pytest.mark.parametrize("trigger", sorted(TRIGGERS))
def test_ctrl_c_in_the_first_moment(cli: Launcher, tmp_path: Path, trigger: str) -> None:
    db = tmp_path / "ledger.db"
    child = interrupt_at(cli, db, trigger)
    check(cli, child, db)


def test_ctrl_c_as_the_run_is_created_through_python_m_maai(cli: Launcher, tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    child = interrupt_at(cli, db, "run row", real=True)
    check(cli, child, db)
