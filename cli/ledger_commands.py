"""Ledger commands: ``maai db upgrade`` and ``maai runs``."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from rich.markup import escape

from maai.cli.common import DbOption, err_console, exit_on_ledger_error, fail, open_store_or_exit
from maai.ledger import RunInfo

db_app = typer.Typer(
    name="db",
    help="Manage the ledger database (schema upgrades).",
    no_args_is_help=True,
)


@db_app.command("upgrade")
def db_upgrade(db: DbOption = None) -> None:
    """Create the ledger schema, or bring it up to this version of maai.

    Needed for PostgreSQL, which is never upgraded implicitly; SQLite files are upgraded
    when opened, and this creates one ahead of time.
    """
    with open_store_or_exit(db, upgrade=True) as store:
        if store.upgraded_from is None:
            typer.echo(f"{store.display}: schema is up to date (revision {store.schema_revision})")
        else:
            typer.echo(
                f"{store.display}: upgraded schema from {store.upgraded_from}"
                f" to revision {store.schema_revision}"
            )


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _label_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_labels(given: list[str]) -> dict[str, str]:
    """``--label KEY=VALUE`` options as a dict; a malformed one is one error line, exit 2."""
    labels: dict[str, str] = {}
    for item in given:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--label {item!r}: expected KEY=VALUE, e.g. --label condition=high", 2)
        labels[key] = value
    return labels


RUNS_HEADER = ("run id", "experiment", "status", "events", "created (UTC)", "labels")


def _runs_lines(runs: list[RunInfo]) -> list[str]:
    """Plain aligned columns: nothing is cut or wrapped, and only the labels (last) may make
    a line longer than 80 characters."""
    from maai.api import labels_of

    rows = [RUNS_HEADER] + [
        (
            run.run_id,
            run.kind,
            run.status,
            str(run.head_seq),
            _when(run.created_at),
            ",".join(f"{k}={_label_text(v)}" for k, v in sorted(labels_of(run).items())),
        )
        for run in runs
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(RUNS_HEADER) - 1)]
    lines = []
    for row in rows:
        cells = [
            row[i].rjust(widths[i]) if i == 3 else row[i].ljust(widths[i])
            for i in range(len(widths))
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines


def _run_json(run: RunInfo) -> dict[str, Any]:
    from maai.api import labels_of

    return {
        "id": run.run_id,
        "experiment": run.kind,
        "labels": labels_of(run),
        "status": run.status,
        "head_seq": run.head_seq,
        "created_at": run.created_at.isoformat(),
        "updated_at": run.updated_at.isoformat(),
    }


def _as_tree(
    lines: list[str], runs: list[RunInfo], parents: dict[str, tuple[str, str, int]]
) -> list[str]:
    """The listed lines reordered so that each fork follows its parent, indented, with the
    point it was forked at; a fork whose parent is not listed stays at the top level."""
    line_of = {run.run_id: line for run, line in zip(runs, lines[1:], strict=True)}
    listed = set(line_of)
    children: dict[str, list[str]] = {}
    for run in runs:
        parent = parents.get(run.run_id)
        if parent is not None and parent[0] in listed:
            children.setdefault(parent[0], []).append(run.run_id)
    out = [lines[0]]

    def emit(run_id: str, depth: int) -> None:
        fork = parents.get(run_id)
        where = f"  (fork at {fork[1]}, seq {fork[2]})" if fork is not None and depth else ""
        out.append("  " * depth + ("└ " if depth else "") + line_of[run_id] + where)
        for child in children.get(run_id, []):
            emit(child, depth + 1)

    for run in runs:
        parent = parents.get(run.run_id)
        if parent is None or parent[0] not in listed:
            emit(run.run_id, 0)
    return out


def runs_command(
    db: DbOption = None,
    experiment: Annotated[
        str | None,
        typer.Option("--experiment", metavar="NAME", help="Only runs of this experiment."),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            metavar="STATUS",
            help="Only runs with this status (created, running, completed, failed).",
        ),
    ] = None,
    label: Annotated[
        list[str] | None,
        typer.Option(
            "--label",
            metavar="KEY=VALUE",
            help="Only runs with this label (the config's labels:); repeat to require several.",
        ),
    ] = None,
    tree: Annotated[
        bool,
        typer.Option(
            "--tree", help="Each fork under its parent, with its fork point (docs/forks.md)."
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print a JSON list (id, experiment, labels, status, head_seq, created_at,"
            " updated_at) instead of columns.",
        ),
    ] = False,
) -> None:
    """List the runs in the ledger, oldest first (times in UTC).

    Columns: run id, experiment, status, events (the head seq), created, labels."""
    from maai.api import select_runs

    labels = _parse_labels(label or [])
    with open_store_or_exit(db) as store, exit_on_ledger_error():
        runs = select_runs(
            store.list_runs(), experiment=experiment, status=status, labels=labels or None
        )
        where = store.display
        if tree:
            from maai.runtime.forks import lineage

            forks = lineage(store)
    filters = [
        *([f"--experiment {experiment}"] if experiment is not None else []),
        *([f"--status {status}"] if status is not None else []),
        *(f"--label {k}={v}" for k, v in labels.items()),
    ]
    if not runs:
        said = f"no runs match {' '.join(filters)} in {where}" if filters else f"no runs in {where}"
        err_console.print(escape(said))
    if as_json:
        typer.echo(json.dumps([_run_json(run) for run in runs], indent=2, ensure_ascii=False))
        return
    if not runs:
        return
    lines = _runs_lines(runs)
    if tree:
        lines = _as_tree(lines, runs, forks.parents)
    if sys.stdout.isatty():
        lines[0] = typer.style(lines[0], bold=True)
    for line in lines:
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``db`` (with ``upgrade``) and ``runs`` to the ``maai`` app."""
    app.add_typer(db_app, name="db")
    app.command("runs")(runs_command)
