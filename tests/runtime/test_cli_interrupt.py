"""Ctrl-C (or SIGTERM) in the first moment of ``maai run``: before the run exists, while it
is being created, as the engine starts. Always one line and exit 130, never a traceback;
a run that was created is whole (its first event recorded), ``interrupted`` (never
``running``) and resumes to its end. Real signals, sent to this process at those moments;
``tests/e2e/test_early_interrupt.py`` sends them to separate ``maai`` processes."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from maai.cli import run_commands
from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime import engine as engine_module
from tests.e2e.launcher import REPO

CONFIG = str(REPO / "configs" / "default.yaml")


def invoke(*args: str) -> Result:
    env = {"COLUMNS": "80", "OPENAI_AGENTS_DISABLE_TRACING": "1"}
    return CliRunner().invoke(app, list(args), env=env)


def the_line(result: Result) -> str:
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output and "Aborted" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def runs_in(db: Path) -> list[tuple[str, str, int]]:
    if not db.exists():
        return []
    with EventStore.open(str(db)) as store:
        return [(r.run_id, r.status, r.head_seq) for r in store.list_runs()]


def signalling(real: Callable[..., Any], sig: signal.Signals = signal.SIGINT) -> Callable[..., Any]:
    """``real``, with ``sig`` sent to this process just before it runs (once)."""
    sent = False

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal sent
        if not sent:
            sent = True
            os.kill(os.getpid(), sig)
        return real(*args, **kwargs)

    return wrapper


@pytest.fixture(autouse=True)
def _signal_handlers() -> Any:
    """``maai run`` turns SIGTERM into Ctrl-C for its process: give this one its own back."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def test_ctrl_c_before_the_run_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_commands, "load_config", interrupted)
    db = tmp_path / "ledger.db"
    result = invoke("run", CONFIG, "--db", str(db), "-q")
    assert the_line(result) == "interrupted before the run started; nothing was recorded."
    assert runs_in(db) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_run_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    monkeypatch.setattr(EventStore, "create_run", signalling(EventStore.create_run, sig))
    db = tmp_path / "ledger.db"
    result = invoke("run", CONFIG, "--db", str(db), "-q")
    line = the_line(result)
    monkeypatch.undo()
    ((run_id, status, head),) = runs_in(db)
    assert line == f"interrupted. The run is saved; continue it with: maai resume {run_id}"
    # Created whole (with its run.started), stopped before the engine ran.
    assert (status, head) == ("interrupted", 1)
    resumed = invoke("resume", run_id, "--db", str(db), "-q")
    assert resumed.exit_code == 0, resumed.output
    assert runs_in(db)[0][1] == "completed"


def test_ctrl_c_as_the_engine_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Sent from the engine's store thread while it folds the history, before "running".
    monkeypatch.setattr(engine_module, "load_state", signalling(engine_module.load_state))
    db = tmp_path / "ledger.db"
    result = invoke("run", CONFIG, "--db", str(db), "-q")
    line = the_line(result)
    monkeypatch.undo()
    ((run_id, status, _),) = runs_in(db)
    assert line == f"interrupted. The run is saved; continue it with: maai resume {run_id}"
    assert status == "interrupted"
    # Stopped before its engine could sign: its first event was signed as it was recorded.
    verified = invoke("verify", run_id, "--db", str(db))
    assert verified.exit_code == 0, verified.output
    resumed = invoke("resume", run_id, "--db", str(db), "-q")
    assert resumed.exit_code == 0, resumed.output


def test_a_run_left_without_its_first_event_is_never_resumed_from_its_row(
    tmp_path: Path,
) -> None:
    """A process killed between creating a run and recording its first event leaves a row
    and no events: nothing was recorded, and the unhashed row is never trusted for a config."""
    db = tmp_path / "ledger.db"
    with EventStore.open(str(db)) as store:
        store.create_run("20260101-000000-abcdef", "collaboration", {"seed": 1})
    result = invoke("resume", "20260101-000000-abcdef", "--db", str(db), "-q")
    assert result.exit_code == 2, result.output
    assert "has no events: it was never started" in result.stderr
    assert runs_in(db) == [("20260101-000000-abcdef", "created", 0)]


def test_ctrl_c_while_the_command_line_loads_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The console script's entry imports the command line only when it runs, so a Ctrl-C
    that lands during those imports ends as any other: one line, exit 130."""
    import builtins

    from maai import entry

    real_import = builtins.__import__

    def interrupted(name: str, *args: object, **kwargs: object) -> object:
        if name == "maai.cli.app":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", interrupted)
    with pytest.raises(SystemExit) as caught:
        entry.main()
    assert caught.value.code == 130
    assert capsys.readouterr().err == "interrupted.\n"
