"""``maai export`` and ``maai audit`` as their commands alone (no other command registered),
in this process, on SQLite ledgers of the tests' own."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner, Result

from maai.cli.export_commands import register
from maai.domain.events import Event, RunStarted
from maai.ledger import EventStore
from maai.runtime.writer import to_new_event

runner = CliRunner()


def make_app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app


APP = make_app()


def invoke(*args: str) -> Result:
    # A wide terminal, so that rich tables keep each cell on one line.
    return runner.invoke(APP, list(args), env={"COLUMNS": "200"})


def ledger_with(path: Path, runs: dict[str, list[Event]]) -> str:
    url = str(path / "ledger.db")
    with EventStore.open(url) as store:
        for run_id, events in runs.items():
            started = events[0]
            assert isinstance(started, RunStarted)
            store.create_run(run_id, started.experiment, started.config)
            store.append(run_id, 0, [to_new_event(e) for e in events])
    return url


def one_error(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]
